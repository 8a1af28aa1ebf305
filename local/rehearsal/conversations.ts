import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ConversationView as SandboxConversationView } from '../../statemachines/sandbox-views.ts';

/**
 * The conversations an upgrade rehearsal drives (scripts/rehearse-upgrade.ts): each is started
 * on the old release and driven into one kind of wait (`start`), then, after the sandbox came
 * back on the new release with the same state, driven to its normal end (`finish`). They talk
 * to a sandbox only through its HTTP endpoints (docs/sandbox.md), as a person would, with the
 * offline demo model playing the agents; that is what makes them work against any release.
 */

/** A conversation as `/sandbox/conversations` lists it (the fields a rehearsal reads). */
export type ConversationView = Pick<
  SandboxConversationView,
  'id' | 'workflow' | 'status' | 'phase' | 'executionName' | 'anchors' | 'agentTurnRunning'
>;

export interface ExecutionView {
  name: string;
  status: string;
  error?: string;
  cause?: string;
  events: { type: string; stateName?: string }[];
}

/** A sandbox's HTTP endpoints, and the waits on them (`waitFor` gives up on no progress). */
export interface SandboxDriver {
  post(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  conversations(): Promise<ConversationView[]>;
  executionsOf(conversationId: string): Promise<{ name: string; status: string }[]>;
  execution(name: string): Promise<ExecutionView>;
  messages(channel: string, threadTs?: string): Promise<SlackMessage[]>;
  /** A slash command typed by `user` (signed, through the ingress). */
  command(channel: string, user: string, command: string, text: string): Promise<void>;
  /** `user` presses a button of a bot message. */
  press(channel: string, user: string, messageTs: string, button: Button): Promise<void>;
  /** An issue opened on a repository of the GitHub emulator, with its labels; its number. */
  openIssue(repo: string, issue: { title: string; body: string; labels: string[] }): Promise<number>;
  /** The model misbehaves as `fault` says (`/sandbox/faults`); `undefined` ends every fault. */
  modelFault(fault: { kind: string; count: number; retryAfterSeconds?: number } | undefined): Promise<void>;
  /** The Messages API requests the sandbox's model has had (`GET /sandbox/faults`). */
  modelRequests(): Promise<number>;
  waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T>;
}

export interface Button {
  action_id: string;
  value: string;
  text?: { text: string };
}

export interface SlackMessage {
  ts: string;
  bot?: boolean;
  text: string;
  blocks?: { type: string; elements?: Button[] }[];
}

/** What `start` hands to `finish`: the conversation, found by the message that started it. */
export interface Started {
  readonly id: string;
  readonly channel: string;
  readonly threadTs: string;
}

export interface RehearsedConversation {
  readonly workflow: string;
  /** The kind of wait it is in when the old release stops. */
  readonly wait: string;
  /**
   * It starts alone, once the others wait: its start makes the sandbox misbehave for a while
   * (a model fault), which would reach any turn running beside it.
   */
  readonly startsAlone?: boolean;
  /**
   * Settings of its own (SANDBOX_CONFIG's format, merged over the rehearsal's): it rehearses in
   * a sandbox of its own, with the conversations that have the same settings, so that what they
   * change (a protected path, say) reaches no other conversation.
   */
  readonly settings?: Readonly<Record<string, unknown>>;
  /**
   * The feature it needs in the release it starts on: a file of that release and a text the
   * file has where the feature is. A release without it is not rehearsed for this
   * conversation, and its verdict says so (nothing of this kind can be waiting there).
   */
  readonly needs?: FeatureMark;
  start(driver: SandboxDriver): Promise<Started>;
  finish(driver: SandboxDriver, started: Started): Promise<void>;
}

export interface FeatureMark {
  /** The feature, as a verdict names it: "the issue pipeline's sensitive change approval". */
  readonly feature: string;
  /**
   * A file of the release, relative to its root, or a folder, whose files are all read: a
   * folder keeps the mark true across releases that moved the text between its files.
   */
  readonly path: string;
  /** A text the file (or one of the folder's files) has in a release with the feature. */
  readonly text: string;
}

/** Whether the release checked out in `dir` has the feature `mark` names. */
export function releaseHas(dir: string, mark: FeatureMark): boolean {
  const path = join(dir, mark.path);
  if (!existsSync(path)) return false;
  const files = statSync(path).isDirectory()
    ? readdirSync(path, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
    : [path];
  return files.some((file) => readFileSync(file, 'utf8').includes(mark.text));
}

/** The conversation a message started (the one anchored at its thread). */
export async function conversationStartedBy(
  driver: SandboxDriver,
  channel: string,
  ts: string,
): Promise<ConversationView> {
  return driver.waitFor(`the conversation started by ${channel} ${ts}`, async () =>
    (await driver.conversations()).find((c) =>
      c.anchors.some((anchor) => anchor.channel === channel && anchor.threadTs === ts),
    ),
  );
}

/**
 * Resolves once the conversation's current execution waits in `waitState` (its wait is
 * registered: the state's last Task event is TaskSubmitted), with no agent turn running, and
 * `times` such waits at least have begun across its executions (a wait entered again after a
 * turn counts anew).
 */
export async function waitsAt(
  driver: SandboxDriver,
  id: string,
  waitState: string,
  times = 1,
): Promise<void> {
  await driver.waitFor(`${id} to wait in '${waitState}'${times > 1 ? ` (wait ${times})` : ''}`, async () => {
    const conversation = (await driver.conversations()).find((c) => c.id === id);
    if (!conversation?.executionName || conversation.agentTurnRunning) return undefined;
    const execution = await driver.execution(conversation.executionName);
    if (execution.status !== 'RUNNING') {
      // An execution that hands over records its successor on the conversation, then succeeds:
      // read between the two, the conversation still names the execution that just ended.
      const now = (await driver.conversations()).find((c) => c.id === id);
      if (now?.executionName !== undefined && now.executionName !== execution.name) return undefined;
      throw new ConversationEndedError(id, execution);
    }
    const last = execution.events.at(-1);
    const entered = execution.events.filter((event) => event.type.endsWith('StateEntered')).at(-1);
    if (last?.type !== 'TaskSubmitted' || entered?.stateName !== waitState) return undefined;
    let count = 0;
    for (const { name } of await driver.executionsOf(id)) {
      const events = name === execution.name ? execution.events : (await driver.execution(name)).events;
      count += events.filter((e) => e.type.endsWith('StateEntered') && e.stateName === waitState).length;
    }
    return count >= times ? true : undefined;
  });
}

/** Resolves once every execution of the conversation has ended; throws if one did not succeed. */
export async function endsNormally(driver: SandboxDriver, id: string): Promise<void> {
  const executions = await driver.waitFor(`${id} to end`, async () => {
    const list = await driver.executionsOf(id);
    return list.length > 0 && list.every((e) => e.status !== 'RUNNING') ? list : undefined;
  });
  for (const { name, status } of executions) {
    if (status !== 'SUCCEEDED') throw new ConversationEndedError(id, await driver.execution(name));
  }
}

/** The bot's last message in a thread that has buttons (and `text`, given), once there is one. */
export async function buttonsIn(
  driver: SandboxDriver,
  channel: string,
  threadTs: string,
  what: string,
  text = '',
) {
  const message = await driver.waitFor(what, async () =>
    (await driver.messages(channel, threadTs))
      .filter((m) => m.bot && m.text.includes(text) && m.blocks?.some((b) => b.type === 'actions'))
      .at(-1),
  );
  return { message, buttons: message.blocks?.find((b) => b.type === 'actions')?.elements ?? [] };
}

/** `user` presses the button whose label matches `label` on the approval request (`:lock:`) in a thread. */
export async function pressOnApproval(
  driver: SandboxDriver,
  thread: { channel: string; threadTs: string },
  user: string,
  label: RegExp,
): Promise<void> {
  const { message, buttons } = await buttonsIn(
    driver,
    thread.channel,
    thread.threadTs,
    `the approval request in ${thread.channel} ${thread.threadTs}`,
    ':lock:',
  );
  const button = buttons.find((b) => label.test(b.text?.text ?? b.value));
  if (!button) throw new Error(`the approval request ${message.ts} has no button ${label}`);
  await driver.press(thread.channel, user, message.ts, button);
}

/** Resolves once an execution of the conversation has entered the state `stateName`. */
export async function hasEntered(driver: SandboxDriver, id: string, stateName: string): Promise<void> {
  await driver.waitFor(`${id} to enter '${stateName}'`, async () => {
    for (const { name } of await driver.executionsOf(id)) {
      const { events } = await driver.execution(name);
      if (events.some((e) => e.type.endsWith('StateEntered') && e.stateName === stateName)) return true;
    }
    return undefined;
  });
}

/** Resolves once one of the conversation's running executions (a child's) waits in the Wait state `waitState`. */
export async function childWaitsAt(driver: SandboxDriver, id: string, waitState: string): Promise<void> {
  await driver.waitFor(`a child of ${id} to wait in '${waitState}'`, async () => {
    for (const { name, status } of await driver.executionsOf(id)) {
      if (status !== 'RUNNING') continue;
      const last = (await driver.execution(name)).events.at(-1);
      if (last?.type === 'WaitStateEntered' && last.stateName === waitState) return true;
    }
    return undefined;
  });
}

/** A conversation whose execution ended other than the rehearsal expected (failed, timed out). */
export class ConversationEndedError extends Error {
  override readonly name = 'ConversationEndedError';
  constructor(
    readonly conversationId: string,
    readonly execution: ExecutionView,
  ) {
    super(
      `${execution.name} ended ${execution.status}${execution.error ? `: ${execution.error}` : ''}${
        execution.cause ? `: ${execution.cause}` : ''
      }`,
    );
  }
}
