/**
 * The wake latency under load, with its breakdown. One sandbox runs the production bug workflow
 * with a scripted model; N bug reports are opened at once, then in each conversation people send
 * M messages: the even ones while the conversation waits for them (the Router wakes the wait),
 * the odd ones while the agent's turn runs (the message waits in the inbox, and RegisterWait
 * wakes the next wait at once). The first half come from the reporter in the report's thread,
 * the rest from a developer in the findings thread (from the first even message of the second
 * half: the findings thread opens with the turn that answers the reporter's last message).
 *
 * For every message: the time from its post to the first request of the model whose turn
 * prompt holds its text, split into stages read from what the system records (the stored
 * message's `receivedAt` and `deliveredInTurn`, the execution history's task events), from the
 * calls the handlers send (bench/wake-probe.ts observes `send` on the SDK clients' base class in
 * every thread that runs handlers: the ingress's SendMessage, the Router's write of the message,
 * the wait's token handed back, the turn's budget reservation), and from the
 * sandbox's queue (when a Router poller received the message). Then how many turns saw each
 * message. Prints figures; asserts nothing.
 *
 * A lone message's wake (sent while the conversation waited, the only message its turn took) is
 * shown apart, with Drain split into its pending read, its settle (the reads that follow while
 * a burst goes on, zero for a lone message) and its marks, timed on Drain's own queries.
 *
 * Run: `npm run bench:wake-load` (LOAD_N=40 conversations, LOAD_M=4 messages each; THINK_MS=1000,
 * the longest a person takes to answer a waiting conversation; LIVE_PROGRESS=on as deployed;
 * DAILY_CEILING_USD, unset as by default: a daily ceiling, `agentLimits.maxDailyCostUsd`;
 * FUNCTION_THREADS=N runs the sandbox's functions in N worker threads, local/function-threads.ts,
 * instead of on the main thread with the emulators).
 */
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { dynaliteExpressionCounts } from '../local/dynalite-expressions.ts';
import type { HistoryEvent } from '../local/stepfunctions/history.ts';
import {
  ask,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  promptOfTurn,
  REPORTER,
  type Step,
  startBugHarness,
} from '../test/sandbox/bug-harness.ts';
import { submit } from '../test/support/scripted-model.ts';
// Importing the probe also installs it on this thread, where the handlers run unless in threads.
import { type ProbeRecord, WAKE_PROBE_CHANNEL } from './wake-probe.ts';

const N = Number(process.env.LOAD_N ?? 40);
const M = Number(process.env.LOAD_M ?? 4);
const THINK_MS = Number(process.env.THINK_MS ?? 1_000);
/** The longest one step of a conversation (a turn, a wait) may take before the bench gives up on it. */
const STEP_TIMEOUT_MS = Number(process.env.STEP_TIMEOUT_MS ?? 180_000);
const LIVE_PROGRESS = process.env.LIVE_PROGRESS ?? 'on';
const DAILY_CEILING_USD = process.env.DAILY_CEILING_USD ? Number(process.env.DAILY_CEILING_USD) : undefined;
const FUNCTION_THREADS = Number(process.env.FUNCTION_THREADS ?? 0);
const PROBE = fileURLToPath(new URL('./wake-probe.ts', import.meta.url));

// --- What the handlers send, as bench/wake-probe.ts reports it from every thread ---------------

/** The Router's write of a message (its inbox item), by the message's text: when it returned. */
const inboxItems = new Map<string, number>();
/** The waits RegisterWait opened, per conversation, in order: when, and the wait's token. */
const waitsOpened = new Map<string, { at: number; token: string }[]>();
/** Each SendTaskSuccess that returned, by token: when, and who sent it. */
const tokensSent = new Map<string, { at: number; by: string }>();
/** The turns' reservations on their conversation's budget, per conversation: when they returned. */
const reservations = new Map<string, number[]>();
/** The inbox's SQS messages as the ingress sent them (SendMessage's start), and as a Router poller received them. */
const enqueued: { at: number; body: string }[] = [];
const received: { at: number; body: string }[] = [];
/** The model requests as the turns' model client sent them (global fetch, which the SDK uses). */
const modelRequests: { at: number; body: string }[] = [];
/** How long each update of the day's spend counter (one item all turns share) took. */
const dayCounter: number[] = [];
/** Drain's reads of the pending messages (they name the turn they take them for): when each was sent and returned. */
const drainReads: { conversationId: string; turn: number; start: number; end: number }[] = [];
/** Called when something above changes (the drivers wait on it). */
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};

const probes = new BroadcastChannel(WAKE_PROBE_CHANNEL);
probes.onmessage = (event) => {
  const record = (event as { data: ProbeRecord }).data;
  switch (record.kind) {
    case 'inbox-item':
      if (!inboxItems.has(record.text)) inboxItems.set(record.text, record.at);
      break;
    case 'wait':
      waitsOpened.set(record.conversationId, [
        ...(waitsOpened.get(record.conversationId) ?? []),
        { at: record.at, token: record.token },
      ]);
      break;
    case 'reservation':
      reservations.set(record.conversationId, [
        ...(reservations.get(record.conversationId) ?? []),
        record.at,
      ]);
      return;
    case 'enqueued':
      enqueued.push({ at: record.at, body: record.body });
      return;
    case 'token':
      if (!tokensSent.has(record.token)) tokensSent.set(record.token, { at: record.at, by: record.by });
      return;
    case 'drain-read':
      drainReads.push(record);
      return;
    case 'day-counter':
      dayCounter.push(record.ms);
      return;
    case 'model':
      modelRequests.push({ at: record.at, body: record.body });
      return;
  }
  changed();
};

// --- The model's side ----------------------------------------------------------------------------

interface Turn {
  bugId: string;
  at: number;
  prompt: string;
}
/** Every turn's first request the model received, in order. */
const turns: Turn[] = [];

interface Message {
  bugId: string;
  index: number;
  text: string;
  sender: 'reporter' | 'developer';
  postedAt: number;
}
const messages: Message[] = [];

/**
 * The first message a developer sends: the first even one (sent while the conversation waits)
 * from the second half on. Developers write in the findings thread, which the turn answering
 * the reporter's last message opens; an odd message is sent during a turn, so a developer's
 * first one cannot be odd (with LOAD_M=2, every message is the reporter's).
 */
const FIRST_DEVELOPER = Math.ceil(M / 2) + (Math.ceil(M / 2) % 2);
const sender = (index: number) => (index < FIRST_DEVELOPER ? 'reporter' : 'developer');
const textOf = (bugId: string, index: number) =>
  `load message ${index + 1} of ${M} for ${bugId.slice(-12)} (${Math.random().toString(36).slice(2, 10)})`;

async function until(what: string, done: () => boolean): Promise<void> {
  if (done()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      listeners.delete(check);
      reject(new Error(`timed out waiting for ${what}`));
    }, STEP_TIMEOUT_MS);
    const check = () => {
      if (!done()) return;
      clearTimeout(timer);
      listeners.delete(check);
      resolve();
    };
    listeners.add(check);
  });
}

// Waits for people long enough (scaled: 10 minutes) that none times out on a busy machine.
const h = await startBugHarness(
  {
    reporterWaitSeconds: 600_000,
    developerWaitSeconds: 600_000,
    ...(DAILY_CEILING_USD === undefined ? {} : { agentLimits: { maxDailyCostUsd: DAILY_CEILING_USD } }),
  },
  {
    env: { LIVE_PROGRESS },
    ...(FUNCTION_THREADS > 0 && { functionThreads: { count: FUNCTION_THREADS, preload: [PROBE] } }),
  },
);
// The sandbox's queue (not production code): when a Router poller receives each message.
const sqs = h.sandbox.sqs;
const receive = sqs.receiveMessage.bind(sqs);
sqs.receiveMessage = async (...args: Parameters<typeof receive>) => {
  const result = await receive(...args);
  const at = Date.now();
  for (const message of result.Messages ?? []) received.push({ at, body: message.Body });
  return result;
};

interface Conversation {
  bugId: string;
  reportTs: string;
  reportText: string;
  reportedAt: number;
  /** Per message index: the waits opened when the model first saw it (-1: the report). */
  waitsAtTurn: Map<number, number>;
  /** Message indexes the model saw. */
  seen: Set<number>;
  failure?: string;
}

/** Where a message of `sender` goes: the report's thread, or the findings thread. */
async function threadFor(c: Conversation, who: Message['sender']): Promise<{ channel: string; ts: string }> {
  if (who === 'reporter') return { channel: CHANNELS.reports, ts: c.reportTs };
  const conversation = await h.store.getConversation(c.bugId, { consistent: true });
  const anchor = Object.values(conversation?.anchors ?? {}).find((a) => a.channel === CHANNELS.summaries);
  if (!anchor) throw new Error(`${c.bugId} has no findings thread`);
  return { channel: anchor.channel, ts: anchor.threadTs };
}

async function post(c: Conversation, index: number): Promise<Message> {
  const who = sender(index);
  const thread = await threadFor(c, who);
  const message: Message = { bugId: c.bugId, index, text: textOf(c.bugId, index), sender: who, postedAt: 0 };
  message.postedAt = Date.now();
  messages.push(message);
  await h.post(thread.channel, who === 'reporter' ? REPORTER : DEVELOPER, message.text, thread.ts);
  return message;
}

/**
 * Whether a request opens a turn: its last message carries the turn's prompt as text (a resumed
 * session's first request also answers the last turn's tool call), not tool results alone.
 */
function opensTurn(request: Parameters<typeof promptOfTurn>[0]): boolean {
  const last = request.body.messages.at(-1);
  if (last?.role !== 'user') return false;
  if (typeof last.content === 'string') return last.content.trim() !== '';
  return last.content.some((block) => block.type === 'text' && block.text.trim() !== '');
}

/**
 * One turn of the model: note what it sees; when it answers a message people send while the
 * conversation waits, the next message is sent during this turn (held until the Router stored
 * it), and the reply makes the conversation wait for whoever sends the next message.
 */
function modelStep(c: Conversation): Step {
  return async (request) => {
    const prompt = promptOfTurn(request);
    if (opensTurn(request)) turns.push({ bugId: c.bugId, at: Date.now(), prompt });
    const own = messages.filter((m) => m.bugId === c.bugId && prompt.includes(m.text));
    const latest = own.length === 0 ? -1 : Math.max(...own.map((m) => m.index));
    for (const m of own) c.seen.add(m.index);
    if (!c.waitsAtTurn.has(latest)) c.waitsAtTurn.set(latest, waitsOpened.get(c.bugId)?.length ?? 0);
    changed();
    const next = latest + 1;
    if (
      latest >= 0 &&
      latest % 2 === 0 &&
      next < M &&
      !messages.some((m) => m.bugId === c.bugId && m.index === next)
    ) {
      const during = await post(c, next);
      await until(`${c.bugId}'s message ${next + 1} stored`, () => inboxItems.has(during.text)).catch(
        () => undefined,
      );
    }
    return next < M && sender(next) === 'reporter'
      ? submit(ask(`Noted. And then (${next + 1})?`))
      : submit(findings(`Findings after message ${next}`));
  };
}

/** One conversation's people: the report, then each message sent while the conversation waits for it. */
async function drive(c: Conversation): Promise<void> {
  try {
    for (let index = 0; index < M; index++) {
      if (index % 2 === 0) {
        await until(`the model to see ${c.bugId}'s message ${index}`, () => c.waitsAtTurn.has(index - 1));
        const before = c.waitsAtTurn.get(index - 1) ?? 0;
        await until(
          `${c.bugId} to wait for message ${index + 1}`,
          () => (waitsOpened.get(c.bugId)?.length ?? 0) > before,
        );
        await new Promise((resolve) => setTimeout(resolve, Math.random() * THINK_MS));
        await post(c, index);
      }
      await until(`the model to see ${c.bugId}'s message ${index + 1}`, () => c.seen.has(index));
    }
  } catch (error) {
    c.failure = (error as Error).message;
  }
}

const started = Date.now();
const conversations = await Promise.all(
  Array.from({ length: N }, async (_, i) => {
    const reportText = `checkout fails under load (${i + 1} of ${N})`;
    const reportedAt = Date.now();
    const reportTs = await h.post(CHANNELS.reports, REPORTER, reportText);
    const c: Conversation = {
      bugId: bugIdFor(reportTs),
      reportTs,
      reportText,
      reportedAt,
      waitsAtTurn: new Map(),
      seen: new Set(),
    };
    h.script(
      c.bugId,
      Array.from({ length: 4 * M + 8 }, () => modelStep(c)),
    );
    return c;
  }),
);
await Promise.all(conversations.map(drive));
const drivenMs = Date.now() - started;
// Whatever is still in flight (a duplicate delivery, a late turn) ends before the figures are read.
await h.sandbox.idle();
await new Promise((resolve) => setTimeout(resolve, 2_000));
await h.sandbox.idle();

// --- The breakdown -----------------------------------------------------------------------------

const STAGES = [
  [
    'slack -> ingress',
    "post -> ingress receipt (receivedAt): the fake Slack delivers a thread's events in order, threads side by side",
  ],
  ['ingress -> queue', "receipt -> the ingress sends to the inbox queue (SendMessage's start)"],
  ['queue', 'sent -> received by a Router poller (the sandbox runs 2, as Lambda instances)'],
  [
    'Router -> inbox item',
    'received -> the Router stored the message (after the records before it in its batch)',
  ],
  ['inbox item -> wake', "stored -> the wait's token handed back (its TaskSucceeded)"],
  ['wake -> Drain', 'TaskSucceeded of the wait -> TaskStarted of Drain'],
  ['Drain', "Drain's TaskStarted -> TaskSucceeded (settle, marks)"],
  [
    'follow-up notice',
    "developers' wakes: the SlackPost announcing the follow-up, between Drain and the turn",
  ],
  ['Drain -> turn', 'Drain done -> TaskStarted of the agent turn, without the notice (state transitions)'],
  ['turn -> reserved', "the turn's TaskStarted -> its conversation budget reserved"],
  [
    'reserved -> sent',
    "conversation's reservation -> the model client sends the request (fetch): the day's counter, reserved alongside under a daily ceiling, and the request's redaction",
  ],
  ['sent -> model', 'sent -> the model received the first request whose prompt holds the message'],
] as const;
type Stage = (typeof STAGES)[number][0];

/** Drain's parts, from its own reads of the pending messages (observed on the SDK client). */
const DRAIN_PARTS = [
  ['Drain: pending read', "Drain's TaskStarted -> its first read of the pending messages returned"],
  [
    'Drain: settle',
    'first read returned -> last read returned: the reads while a burst goes on (settle.ts), 0 for one read',
  ],
  ['Drain: marks', 'last read returned -> TaskSucceeded: the marks and the conversation write, in parallel'],
] as const;
type DrainPart = (typeof DRAIN_PARTS)[number][0];

interface Row {
  message: Message;
  path: 'wake' | 'inbox';
  wokenBy: string;
  total: number;
  stages: Record<Stage, number | undefined>;
  /** Drain's parts, when its reads were observed. */
  drain?: Record<DrainPart, number> & { reads: number };
  /** The turn that took it, and how many messages that turn took in all. */
  turn?: number;
  takenWith: number;
  missing: string[];
}

const time = (event: HistoryEvent | undefined) => event?.timestamp.getTime();
const minus = (a: number | undefined, b: number | undefined) => (a === undefined ? undefined : a - (b ?? 0));

function historyOf(bugId: string): HistoryEvent[] {
  const sfn = h.sandbox.stepFunctions;
  return sfn
    .listExecutions()
    .filter(
      (e) =>
        e.name === bugId ||
        (e.name.startsWith(`${bugId}-`) && e.stateMachineArn.includes('BugInvestigation')),
    )
    .flatMap((e) => [...sfn.getExecutionHistory(e.executionArn)])
    .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
}

/** The turn a Drain task hands its messages to, from its scheduled parameters. */
function drainTurn(event: HistoryEvent): number | undefined {
  const parameters = event.parameters as { Payload?: { turn?: unknown }; turn?: unknown } | undefined;
  const turn = parameters?.Payload?.turn ?? parameters?.turn;
  return typeof turn === 'number' ? turn : undefined;
}

const isDrain = (e: HistoryEvent) => e.stateName === 'Drain messages';
const isAgentTurn = (e: HistoryEvent) =>
  e.stateName === 'Investigate' || e.stateName === 'Continue investigation';
const isWait = (e: HistoryEvent) => e.stateName?.startsWith('Wait for ') === true;
const isNotice = (e: HistoryEvent) => e.stateName === 'Announce follow-up';

const rows: Row[] = [];
const seenCounts = new Map<Message, number>();
for (const c of conversations) {
  const stored = await h.store.listMessages(c.bugId);
  const history = historyOf(c.bugId);
  for (const message of messages.filter((m) => m.bugId === c.bugId)) {
    const count = turns.filter((t) => t.bugId === c.bugId && t.prompt.includes(message.text)).length;
    seenCounts.set(message, count);
    const first = turns.find((t) => t.bugId === c.bugId && t.prompt.includes(message.text));
    if (!first) continue;
    const item = stored.find((m) => m.text === message.text);
    const points: Record<string, number | undefined> = {
      posted: message.postedAt,
      received: item ? Date.parse(item.receivedAt) : undefined,
      enqueued: enqueued.find((e) => e.body.includes(message.text))?.at,
      dequeued: received.find((e) => e.body.includes(message.text))?.at,
      stored: inboxItems.get(message.text),
      model: first.at,
    };
    const missing: string[] = [];
    const turn = item?.deliveredInTurn;
    const drainScheduled = history.find(
      (e) => isDrain(e) && e.type === 'TaskScheduled' && turn !== undefined && drainTurn(e) === turn,
    );
    let wokenBy = '?';
    let path: Row['path'] = 'wake';
    if (drainScheduled) {
      const at = drainScheduled.timestamp.getTime();
      const after = history.filter((e) => e.timestamp.getTime() >= at);
      const before = history.filter((e) => e.timestamp.getTime() <= at);
      const waitDone = before.findLast((e) => isWait(e) && e.type === 'TaskSucceeded');
      const waitScheduled = before.findLast((e) => isWait(e) && e.type === 'TaskScheduled');
      const token = (waitScheduled?.parameters as { Payload?: { taskToken?: unknown } } | undefined)?.Payload
        ?.taskToken;
      wokenBy = typeof token === 'string' ? (tokensSent.get(token)?.by ?? '?') : '?';
      // Stored before its wait began: it came during a turn and waited in the inbox for it.
      if (waitScheduled && points.stored !== undefined && points.stored < waitScheduled.timestamp.getTime())
        path = 'inbox';
      points.woken = time(waitDone);
      points.drainStarted = time(after.find((e) => isDrain(e) && e.type === 'TaskStarted'));
      points.drained = time(after.find((e) => isDrain(e) && e.type === 'TaskSucceeded'));
      const turnStarted = after.find((e) => isAgentTurn(e) && e.type === 'TaskStarted');
      points.turnStarted = time(turnStarted);
      const beforeTurn = after.filter(
        (e) => turnStarted === undefined || e.timestamp <= turnStarted.timestamp,
      );
      points.noticeStarted = time(beforeTurn.find((e) => isNotice(e) && e.type === 'TaskStarted'));
      points.noticeDone = time(beforeTurn.find((e) => isNotice(e) && e.type === 'TaskSucceeded'));
      const startedAt = points.turnStarted;
      points.reserved =
        startedAt === undefined ? undefined : reservations.get(c.bugId)?.find((r) => r >= startedAt);
      points.sent = modelRequests.find((r) => r.body.includes(message.text))?.at;
    } else missing.push(turn === undefined ? 'no turn recorded on the message' : `no Drain of turn ${turn}`);
    const span = (from: string, to: string): number | undefined => {
      const a = points[from];
      const b = points[to];
      return a === undefined || b === undefined ? undefined : b - a;
    };
    const stages: Row['stages'] = {
      'slack -> ingress': span('posted', 'received'),
      'ingress -> queue': span('received', 'enqueued'),
      queue: span('enqueued', 'dequeued'),
      'Router -> inbox item': span('dequeued', 'stored'),
      'inbox item -> wake': span('stored', 'woken'),
      'wake -> Drain': span('woken', 'drainStarted'),
      Drain: span('drainStarted', 'drained'),
      'follow-up notice': span('noticeStarted', 'noticeDone'),
      'Drain -> turn': minus(span('drained', 'turnStarted'), span('noticeStarted', 'noticeDone')),
      'turn -> reserved': span('turnStarted', 'reserved'),
      'reserved -> sent': span('reserved', 'sent'),
      'sent -> model': span('sent', 'model'),
    };
    for (const [name] of STAGES)
      if (stages[name] === undefined && name !== 'follow-up notice') missing.push(name);
    const reads = drainReads.filter(
      (r) =>
        r.conversationId === c.bugId &&
        r.turn === turn &&
        points.drainStarted !== undefined &&
        points.drained !== undefined &&
        r.start >= points.drainStarted &&
        r.end <= points.drained,
    );
    const firstRead = reads.at(0);
    const lastRead = reads.at(-1);
    const drain =
      firstRead && lastRead && points.drainStarted !== undefined && points.drained !== undefined
        ? {
            'Drain: pending read': firstRead.end - points.drainStarted,
            'Drain: settle': lastRead.end - firstRead.end,
            'Drain: marks': points.drained - lastRead.end,
            reads: reads.length,
          }
        : undefined;
    const takenWith = stored.filter((m) => turn !== undefined && m.deliveredInTurn === turn).length;
    rows.push({
      message,
      path,
      wokenBy,
      total: first.at - message.postedAt,
      stages,
      ...(drain ? { drain } : {}),
      ...(turn === undefined ? {} : { turn }),
      takenWith,
      missing,
    });
  }
}

// --- Figures -------------------------------------------------------------------------------------

function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? Number.NaN;
}
const ms = (value: number) => (Number.isNaN(value) ? '-' : `${Math.round(value)}`);
function line(label: string, values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cells = [50, 90, 99].map((p) => ms(percentile(sorted, p)));
  cells.push(ms(sorted.at(-1) ?? Number.NaN));
  return `  ${label.padEnd(24)}${cells.map((c) => c.padStart(8)).join('')}${String(sorted.length).padStart(7)}`;
}
const valuesOf = (list: readonly Row[], stage: Stage) =>
  list.flatMap((r) => (r.stages[stage] === undefined ? [] : [r.stages[stage] as number]));

/** A table's title, its columns, and the line of the whole wait. */
function heading(title: string, list: readonly Row[]): void {
  console.log(title);
  console.log(
    `  ${'(ms)'.padEnd(24)}${['p50', 'p90', 'p99', 'max'].map((c) => c.padStart(8)).join('')}      n`,
  );
  console.log(
    line(
      'total: post -> model',
      list.map((r) => r.total),
    ),
  );
}

function table(title: string, list: readonly Row[]): void {
  heading(title, list);
  for (const [name] of STAGES) console.log(line(name, valuesOf(list, name)));
  // Where the slowest messages spent their time: the mean of each stage over those at or above p90.
  const cut = percentile(
    list.map((r) => r.total).sort((a, b) => a - b),
    90,
  );
  const slow = list.filter((r) => r.total >= cut);
  if (slow.length === 0) return;
  const shares = STAGES.map(([name]) => {
    const values = valuesOf(slow, name);
    return { name, mean: values.reduce((a, b) => a + b, 0) / slow.length };
  }).sort((a, b) => b.mean - a.mean);
  const total = slow.reduce((a, r) => a + r.total, 0) / slow.length;
  console.log(
    `  slowest ${slow.length} (>= p90, mean ${ms(total)} ms): ${shares
      .slice(0, 3)
      .map((s) => `${s.name} ${ms(s.mean)} (${Math.round((100 * s.mean) / total)}%)`)
      .join(', ')}`,
  );
}

/**
 * A lone message's wake: the stages with Drain in its parts. Drain settles only when two or
 * more messages are pending, so a lone message's settle is one read and no wait.
 */
function loneTable(list: readonly Row[]): void {
  const lone = list.filter((r) => r.path === 'wake' && r.takenWith === 1 && r.drain !== undefined);
  heading("A lone message's wake (sent while the conversation waited, the only message its turn took)", lone);
  for (const [name] of STAGES) {
    console.log(line(name, valuesOf(lone, name)));
    if (name !== 'Drain') continue;
    for (const [part] of DRAIN_PARTS)
      console.log(
        line(
          `  ${part.slice('Drain: '.length)}`,
          lone.map((r) => r.drain?.[part] ?? 0),
        ),
      );
  }
  const reads = lone.map((r) => r.drain?.reads ?? 0);
  console.log(
    `  Drain's reads of the pending messages: ${Math.min(...reads)} to ${Math.max(...reads)} per lone message; ` +
      `turns that took two or more messages: ${new Set(list.filter((r) => r.takenWith > 1).map((r) => `${r.message.bugId}:${r.turn}`)).size}`,
  );
}

const opening = conversations.flatMap((c) => {
  const first = turns.find((t) => t.bugId === c.bugId && t.prompt.includes(c.reportText));
  return first ? [first.at - c.reportedAt] : [];
});

console.log(
  `wake-load: ${N} conversations x ${M} messages, think time up to ${THINK_MS} ms, live progress ${LIVE_PROGRESS}, daily ceiling ${DAILY_CEILING_USD === undefined ? 'none' : `$${DAILY_CEILING_USD}`}, time scale ${h.sandbox.timeScale}, functions ${FUNCTION_THREADS > 0 ? `in ${FUNCTION_THREADS} worker threads` : 'on the main thread'}; driven in ${(drivenMs / 1000).toFixed(1)} s`,
);
const expressions = dynaliteExpressionCounts();
console.log(
  `dynalite's expression parsers: ${expressions.kept} requests answered from the memo, ${expressions.parsed} parses (local/dynalite-expressions.ts)`,
);
console.log('');
console.log('Stages:');
for (const [name, meaning] of STAGES) console.log(`  ${name.padEnd(24)}${meaning}`);
for (const [name, meaning] of DRAIN_PARTS) console.log(`  ${name.padEnd(24)}${meaning}`);
console.log(
  '  Not observed apart: the Router between its write and its SendTaskSuccess, and RegisterWait\n' +
    '  (both in "inbox item -> wake"); a Lambda runtime\'s own start (the sandbox invokes the\n' +
    '  handlers in process: TaskStarted is the invocation).',
);
console.log('');
console.log(line('opening: report -> model', opening).replace(/^ {2}/, ''));
console.log('');
table('All messages', rows);
console.log('');
table(
  'Sent while the conversation waited (the Router wakes it)',
  rows.filter((r) => r.path === 'wake'),
);
console.log('');
table(
  'Sent during a turn (waits in the inbox)',
  rows.filter((r) => r.path === 'inbox'),
);
console.log('');
loneTable(rows);
console.log('');
const wokenBy = new Map<string, number>();
for (const r of rows)
  wokenBy.set(
    `${r.path} path, woken by ${r.wokenBy}`,
    (wokenBy.get(`${r.path} path, woken by ${r.wokenBy}`) ?? 0) + 1,
  );
console.log(`Woken: ${[...wokenBy].map(([k, v]) => `${k}: ${v}`).join('; ')}`);
const missing = rows.filter((r) => r.missing.length > 0);
if (missing.length > 0) {
  console.log(
    `Stages not observed for ${missing.length} message(s), e.g. ${missing[0]?.message.text}: ${missing[0]?.missing.join(', ')}`,
  );
}

console.log(line("the day's counter updates", dayCounter).replace(/^ {2}/, ''));

const posted = messages.length;
const counts = [...seenCounts.values()];
const once = counts.filter((n) => n === 1).length;
const twice = counts.filter((n) => n >= 2).length;
const never = counts.filter((n) => n === 0).length;
console.log('');
console.log(`Messages posted: ${posted} (of ${N * M} planned)`);
console.log(`Seen by the model exactly once: ${once}`);
console.log(`Seen twice or more (duplicates): ${twice}`);
console.log(`Never seen (lost): ${never}`);
console.log(`Each message reached exactly one turn: ${once === posted && posted === N * M ? 'yes' : 'no'}`);
const failed = conversations.filter((c) => c.failure !== undefined);
if (failed.length > 0)
  console.log(`Conversations that did not finish: ${failed.length}, e.g. ${failed[0]?.failure}`);
if (h.modelFailures.length > 0) console.log('Model failures:', h.modelFailures.slice(0, 5));
await h.stop();
probes.close();
