/**
 * `npm run screenshots`: renews the pictures of docs/screenshots/ from this checkout. It starts
 * the offline sandbox (`local/main.ts`, the demo model playing the agents, on a free port and a
 * state directory of its own), drives it as people would through its HTTP endpoints
 * (docs/sandbox.md), and photographs the console in Chromium:
 *
 * - `bug-thread.png`: the demo bug's findings in the bug-summaries channel;
 * - `incident-thread.png`: an `/investigate` thread waiting for on call's approval of a step;
 * - `channel-thread.png`: a channel conversation's answer in #general;
 * - `app-home.png`: on call's App Home, with that approval waiting for them.
 *
 * Chromium: CHROMIUM_PATH, else Debian's `chromium-headless-shell` or `chromium` (install with
 * `sudo apt-get install -y chromium-headless-shell fonts-noto-color-emoji`). The console is
 * built first (the npm script runs `build:console`).
 */
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { freePort } from '../local/free-port.ts';
import { conversationStartedBy, type SandboxDriver, waitsAt } from '../local/rehearsal/conversations.ts';
import { httpDriver } from '../local/rehearsal/http-driver.ts';
import { startSandboxProcess } from '../local/rehearsal/sandbox-process.ts';

const OUT = join('docs', 'screenshots');
const VIEWPORT = { width: 1400, height: 900 };
const REPORT =
  'Checkout totals are too high with a discount code: the VAT looks wrong, steps: add 2 T-shirts, apply SAVE10, region DE.';

function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH;
  const candidates = configured ? [configured] : ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not there: the next one.
    }
  }
  throw new Error(
    `no Chromium at ${candidates.join(' or ')}: install it with \`sudo apt-get install -y chromium-headless-shell fonts-noto-color-emoji\`, or set CHROMIUM_PATH`,
  );
}

/** The demo bug reported; resolves once its findings are posted in the summaries channel. */
async function bug(driver: SandboxDriver): Promise<string> {
  const ts = await driver.post('C_BUG_REPORTS', 'U_REPORTER', REPORT);
  const { id } = await conversationStartedBy(driver, 'C_BUG_REPORTS', ts);
  await waitsAt(driver, id, 'Wait for developers');
  return `channel=C_BUG_SUMMARIES&as=U_DEV`;
}

/** `/investigate` in the incidents channel; resolves once the step approval waits for on call. */
async function incident(driver: SandboxDriver): Promise<string> {
  await driver.command('C_INCIDENTS', 'U_ONCALL', '/investigate', 'checkout latency');
  const conversation = await driver.waitFor('the incident investigation', async () =>
    (await driver.conversations()).find(
      (c) => c.workflow === 'incident_investigation' && c.anchors.length > 0,
    ),
  );
  await waitsAt(driver, conversation.id, 'Wait for step approval');
  const anchor = conversation.anchors.find((a) => a.channel === 'C_INCIDENTS') ?? conversation.anchors[0];
  return `channel=C_INCIDENTS&thread=${anchor?.threadTs ?? ''}&as=U_ONCALL`;
}

/** A mention in #general; resolves once the bot answered it. */
async function channel(driver: SandboxDriver): Promise<string> {
  await driver.post('C_GENERAL', 'U_ALICE', 'Is the staging deploy still frozen this week?');
  await driver.post('C_GENERAL', 'U_ALICE', '<@U_BOT> when do deploys run on Fridays?');
  await driver.waitFor('the channel answer', async () =>
    (await driver.messages('C_GENERAL')).some((m) => m.bot) ? true : undefined,
  );
  return 'channel=C_GENERAL&as=U_ALICE';
}

/** Opens `url` in a page of its own (the console reads its address when it loads) and photographs it once `visible` shows. */
async function photograph(
  context: BrowserContext,
  url: string,
  file: string,
  visible: string,
): Promise<void> {
  const page = await context.newPage();
  await page.goto(url);
  await page
    .getByText(visible, { exact: false })
    .first()
    .waitFor({ timeout: 60_000 })
    .catch(async (error: unknown) => {
      await page.screenshot({ path: join(tmpdir(), `screenshots-${file}`) });
      throw error;
    });
  // Let the live view settle (fonts, the last message's blocks) before the picture.
  await page.waitForTimeout(1_000);
  await page.screenshot({ path: join(OUT, file) });
  process.stdout.write(`wrote ${join(OUT, file)}\n`);
  await page.close();
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'screenshots-state-'));
  const port = await freePort();
  const sandbox = await startSandboxProcess({
    dir: process.cwd(),
    stateDir,
    port,
    // Waits for people shrink, but not so far that on call's approval (an hour: 6 minutes here)
    // expires before its picture.
    env: { SANDBOX_TIME_SCALE: '0.1', SANDBOX_LOG_LEVEL: 'WARN' },
    label: 'this checkout',
  });
  const browser = await chromium.launch({ executablePath: chromiumPath() });
  try {
    const driver = httpDriver(sandbox.url);
    const [bugView, incidentView, channelView] = await Promise.all([
      bug(driver),
      incident(driver),
      channel(driver),
    ]);
    mkdirSync(OUT, { recursive: true });
    const context = await browser.newContext({ viewport: VIEWPORT });
    await photograph(context, `${sandbox.url}/#${bugView}`, 'bug-thread.png', 'VAT');
    await photograph(context, `${sandbox.url}/#${incidentView}`, 'incident-thread.png', 'Approve');
    await photograph(context, `${sandbox.url}/#${channelView}`, 'channel-thread.png', 'Fridays');
    const page = await context.newPage();
    await page.goto(`${sandbox.url}/#as=U_ONCALL`);
    await page.locator('[data-testid="home-button"]').click();
    await page.locator('[data-testid="home-view"]').getByText('Waiting for you').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1_000);
    await page.screenshot({ path: join(OUT, 'app-home.png') });
    process.stdout.write(`wrote ${join(OUT, 'app-home.png')}\n`);
    await context.close();
  } finally {
    await browser.close();
    await sandbox.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `screenshots: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
    );
    process.exit(1);
  },
);
