import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../free-port.ts';
import { type RehearsedConversation, releaseHas, type Started } from './conversations.ts';
import { httpDriver } from './http-driver.ts';
import { checkOutOldRelease } from './old-release.ts';
import { REHEARSED_CONVERSATIONS } from './rehearsed-conversations.ts';
import { type SandboxProcess, startSandboxProcess } from './sandbox-process.ts';
import { skippedVerdict, type Verdict, verdictOf } from './verdicts.ts';

/**
 * The upgrade rehearsal (`npm run rehearse-upgrade -- --from <ref>`): the old release's sandbox
 * starts on a fresh state directory, conversations of every workflow are driven into every kind
 * of wait the demo model reaches, the sandbox stops (saving its state), the current release's
 * sandbox starts on the same state, and each conversation is driven to its normal end. A
 * conversation that cannot go on after the upgrade fails, with what its execution said.
 * Conversations with settings of their own rehearse in a sandbox pair of their own, one pair per
 * settings; one whose feature the old release lacks is not rehearsed, and its verdict says so.
 */

export interface RehearsalOptions {
  /** This release's checkout (where `npm run rehearse-upgrade` runs). */
  readonly repo: string;
  readonly from: string;
  readonly conversations?: readonly RehearsedConversation[];
  readonly log: (line: string) => void;
}

/** An escalation's time to be acknowledged, at every severity: 2 minutes at the rehearsal's scale. */
const ACKNOWLEDGE_MINUTES = 40;

/**
 * Both sandboxes run with these settings: a bug conversation handed over after two turns, so a
 * conversation stands between two executions of one conversation when the upgrade comes, and
 * an escalation's SLA wait long enough to outlast the restart and short enough to end after it.
 */
export const REHEARSAL_SETTINGS = {
  bugInvestigation: {
    continueAsNewAfterTurns: 2,
    sla: {
      acknowledgeMinutes: {
        critical: ACKNOWLEDGE_MINUTES,
        high: ACKNOWLEDGE_MINUTES,
        medium: ACKNOWLEDGE_MINUTES,
        low: ACKNOWLEDGE_MINUTES,
      },
    },
  },
} as const;

type Settings = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Settings =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `own` over `base`, object by object (an array or a value of `own` replaces the base's). */
export function mergeSettings(base: Settings, own: Settings): Settings {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(own)) {
    const under = merged[key];
    merged[key] = isRecord(under) && isRecord(value) ? mergeSettings(under, value) : value;
  }
  return merged;
}

/**
 * Both sandboxes' environment: waits shrunk (a 2-hour wait for a reporter lasts 6 minutes,
 * longer than a restart) and the rehearsal's settings, with a conversation's own over them.
 */
export function rehearsalEnv(own: Settings = {}): Record<string, string> {
  return {
    SANDBOX_TIME_SCALE: '0.05',
    SANDBOX_LOG_LEVEL: 'WARN',
    SANDBOX_CONFIG: JSON.stringify(mergeSettings(REHEARSAL_SETTINGS, own)),
  };
}

/** The conversations in groups of equal settings (the rehearsal's own first), in their order. */
function bySettings(conversations: readonly RehearsedConversation[]): RehearsedConversation[][] {
  const groups = new Map<string, RehearsedConversation[]>([['{}', []]]);
  for (const conversation of conversations) {
    const key = JSON.stringify(conversation.settings ?? {});
    groups.set(key, [...(groups.get(key) ?? []), conversation]);
  }
  return [...groups.values()].filter((group) => group.length > 0);
}

export async function rehearseUpgrade(options: RehearsalOptions): Promise<Verdict[]> {
  const conversations = options.conversations ?? REHEARSED_CONVERSATIONS;
  const old = checkOutOldRelease(options.repo, options.from, options.log);
  const verdicts: Verdict[] = [];
  try {
    const rehearsed: RehearsedConversation[] = [];
    for (const conversation of conversations) {
      const { needs } = conversation;
      if (needs === undefined || releaseHas(old.dir, needs)) {
        rehearsed.push(conversation);
        continue;
      }
      const skipped = skippedVerdict(conversation, options.from, needs);
      options.log(
        `not rehearsing ${conversation.workflow} waiting for ${conversation.wait}: ${skipped.message}`,
      );
      verdicts.push(skipped);
    }
    for (const group of bySettings(rehearsed))
      verdicts.push(...(await rehearseGroup(old.dir, group, options)));
  } finally {
    old.remove();
  }
  // In the order the conversations are listed.
  return conversations.flatMap((c) => verdicts.filter((v) => v.workflow === c.workflow && v.wait === c.wait));
}

/**
 * One old sandbox and one current sandbox on a state directory of their own, for conversations
 * of equal settings: each driven into its wait, the upgrade, each driven to its end.
 */
async function rehearseGroup(
  oldDir: string,
  conversations: readonly RehearsedConversation[],
  options: RehearsalOptions,
): Promise<Verdict[]> {
  const settings = conversations[0]?.settings ?? {};
  const env = rehearsalEnv(settings);
  const stateDir = mkdtempSync(join(tmpdir(), 'rehearse-upgrade-state-'));
  const port = await freePort();
  const verdicts: Verdict[] = [];
  let sandbox: SandboxProcess | undefined;
  try {
    const own = Object.keys(settings).length > 0 ? ` with the settings ${JSON.stringify(settings)}` : '';
    options.log(`starting the sandbox of ${options.from} on port ${port}${own}, state in ${stateDir}`);
    sandbox = await startSandboxProcess({
      dir: oldDir,
      stateDir,
      port,
      env,
      label: options.from,
    });
    const before = httpDriver(sandbox.url);
    const start = async (conversation: RehearsedConversation): Promise<Started | undefined> => {
      try {
        const handle = await conversation.start(before);
        options.log(`${conversation.workflow} waits for ${conversation.wait} (${handle.id})`);
        return handle;
      } catch (error) {
        verdicts.push(verdictOf(conversation, 'start', error));
        return undefined;
      }
    };
    const together = conversations.filter((c) => c.startsAlone !== true);
    const handles = await Promise.all(together.map(start));
    const started = new Map(together.map((conversation, index) => [conversation, handles[index]]));
    for (const conversation of conversations.filter((c) => c.startsAlone === true))
      started.set(conversation, await start(conversation));
    options.log(`stopping the sandbox of ${options.from}`);
    await sandbox.stop();
    sandbox = undefined;
    if (![...started.values()].some((handle) => handle !== undefined)) return verdicts;

    options.log('starting the current sandbox on the same state');
    sandbox = await startSandboxProcess({
      dir: options.repo,
      stateDir,
      port,
      env,
      label: 'current',
    });
    const after = httpDriver(sandbox.url);
    await Promise.all(
      conversations.map(async (conversation) => {
        const handle = started.get(conversation);
        if (!handle) return;
        try {
          await conversation.finish(after, handle);
          verdicts.push(verdictOf(conversation, 'finish'));
        } catch (error) {
          verdicts.push(verdictOf(conversation, 'finish', error));
        }
      }),
    );
    await sandbox.stop();
    sandbox = undefined;
  } finally {
    await sandbox?.stop().catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  }
  return verdicts;
}
