import { mkdirSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { activityCount } from '../../local/activity.ts';
import { type EventuallyOptions, eventually } from '../support/eventually.ts';
import { ensureChromium } from './chromium.ts';
import { ensureConsoleBuilt } from './console-build.ts';

/** What the console's browser tests share: building the console, launching Chromium, opening a page. */

export const OUT = 'test-output/console';

/**
 * How long a page may wait with nothing moving: neither the sandbox (local/activity.ts) nor any
 * page of this worker (its DOM) changed. A browser action or a wait fails then, never on a total:
 * on a busy machine the same step simply takes longer.
 */
const STALL_MS = 60_000;

/** DOM changes seen on this worker's pages (each page reports at most every 200 ms). */
let pageChanges = 0;

/** A sign of progress for `eventually`: the console's pages changed. */
const consoleProgress = (): number => pageChanges;

/** `eventually` for what a console page shows: it fails when neither the sandbox nor the page moved. */
export function onPage<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  options: Omit<EventuallyOptions, 'progress'> = {},
): Promise<T> {
  return eventually(probe, accept, what, { stallMs: STALL_MS, ...options, progress: consoleProgress });
}

/**
 * Playwright's actions wait without a time limit of their own; this watchdog closes the page,
 * failing whatever action is pending with the reason, once nothing moved for `STALL_MS`.
 */
export async function watchForStalls(page: Page, stallMs = STALL_MS): Promise<void> {
  await page.exposeFunction('__consoleTestPageChanged', () => {
    pageChanges += 1;
  });
  // In the page (as text: this project's TypeScript has no DOM types): at most one report per 200 ms.
  await page.addInitScript(`(() => {
    let last = 0;
    new MutationObserver(() => {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      window.__consoleTestPageChanged?.();
    }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  })()`);
  let seen = '';
  let movedAt = Date.now();
  const timer = setInterval(
    () => {
      const sign = `${activityCount()}/${pageChanges}`;
      if (sign !== seen) {
        seen = sign;
        movedAt = Date.now();
      } else if (Date.now() - movedAt >= stallMs) {
        clearInterval(timer);
        void page.close({
          reason: `no progress for ${stallMs} ms: neither the sandbox nor the page changed`,
        });
      }
    },
    Math.min(1_000, stallMs / 4),
  );
  timer.unref();
  page.on('close', () => clearInterval(timer));
}

const WORKER_BROWSER = Symbol.for('slack-agent-workflows.test.console-browser');

/**
 * Builds the console (unless it is built from its current sources already) and gives the file
 * Debian's Chromium (found, or installed saying why). Browser files run one after another in a
 * warm worker (the `sandbox` project), so the worker keeps one Chromium for all of them: each
 * file opens contexts of its own (no cookies, storage or pages shared) and closes them with
 * `releaseConsoleBrowser`; playwright ends the browser when the worker exits.
 */
export async function launchConsoleBrowser(): Promise<Browser> {
  const executablePath = ensureChromium();
  mkdirSync(OUT, { recursive: true });
  await ensureConsoleBuilt();
  const holder = globalThis as { [WORKER_BROWSER]?: Browser };
  const kept = holder[WORKER_BROWSER];
  if (kept?.isConnected()) {
    // What an earlier file left open (it failed before its afterAll, say).
    await Promise.all(kept.contexts().map((context) => context.close()));
    return kept;
  }
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  holder[WORKER_BROWSER] = browser;
  return browser;
}

/** Closes what the file opened in the worker's browser (its contexts and their pages). */
export async function releaseConsoleBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser?.isConnected()) return;
  await Promise.all(browser.contexts().map((context) => context.close()));
}

/**
 * Launches the console's browser while `start` starts what it will look at (the sandbox), since
 * neither waits for the other; both are closed again if either fails.
 */
export async function launchBeside<T>(
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
): Promise<{ browser: Browser; started: T }> {
  const [launched, begun] = await Promise.allSettled([launchConsoleBrowser(), start()]);
  if (launched.status === 'fulfilled' && begun.status === 'fulfilled')
    return { browser: launched.value, started: begun.value };
  if (launched.status === 'fulfilled') await releaseConsoleBrowser(launched.value);
  if (begun.status === 'fulfilled') await stop(begun.value);
  throw launched.status === 'rejected' ? launched.reason : (begun as PromiseRejectedResult).reason;
}

/** Opens the console at `url` (the sandbox's, with a hash if wanted) and waits for its change stream. */
export async function openConsoleAt(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number },
  options: { mode?: 'live' | 'polling'; before?: (page: Page) => Promise<void> } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  // Reduced motion: the console's endless animations (the thinking dots, the spinner, the current
  // state's pulse) would have Chromium repaint every frame for as long as a page is open, seconds
  // of CPU per file; what the tests read (the DOM, its text and boxes) is the same either way.
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(0);
  await watchForStalls(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await options.before?.(page);
  await page.goto(url);
  await page.locator(`[data-testid="live"][data-mode="${options.mode ?? 'live'}"]`).waitFor();
  expect(problems).toEqual([]);
  return { context, page };
}

export const shot = (page: Page, name: string) => page.screenshot({ path: `${OUT}/${name}.png` });

/** The graph's scroller, after Fit: the graph no wider than the box, and nothing to scroll sideways. */
export async function expectGraphFits(page: Page): Promise<{ graph: number; box: number }> {
  const scroller = page.getByTestId('graph-scroll');
  await onPage(
    () =>
      scroller.evaluate((element) => {
        const svg = element.querySelector('svg.graph');
        return svg ? svg.getBoundingClientRect().width <= element.clientWidth : false;
      }),
    (fits) => fits,
    'the graph to fit its box',
  );
  const sizes = await scroller.evaluate((element) => ({
    graph: Number(element.querySelector('svg.graph')?.getAttribute('width')),
    box: element.clientWidth,
    sideways: element.scrollWidth - element.clientWidth,
  }));
  expect(sizes.sideways).toBeLessThanOrEqual(0);
  return sizes;
}

/** Whether two boxes overlap (sharing an edge is not overlapping). */
export async function overlaps(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = await Promise.all([a.boundingBox(), b.boundingBox()]);
  if (!x || !y) throw new Error('an element has no box');
  return (
    x.x < y.x + y.width - 0.5 &&
    y.x < x.x + x.width - 0.5 &&
    x.y < y.y + y.height - 0.5 &&
    y.y < x.y + x.height - 0.5
  );
}
