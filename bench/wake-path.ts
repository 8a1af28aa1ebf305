/**
 * The wake path and the developer round trip, measured in the sandbox with
 * the production bug workflow and a scripted model. Prints figures; asserts nothing.
 *
 * - Wake path: every DynamoDB and Step Functions call made from the moment the reporter's
 *   answer is posted until the agent's next turn starts (its first call), as the SDK clients
 *   send them (all handlers run in this process, so `send` is counted on the client classes).
 *   "Sequential" counts the round trips on the critical path: calls whose lifetimes overlap
 *   (sent in parallel) count once.
 * - Round trip: the states a developer's reply walks through, from the wait it wakes to the
 *   next "Wait for developers", as the execution history records them (each is one state
 *   transition in Step Functions' billing), and how many of them are Choice or Pass states.
 *
 * Run: `npm run bench:wake-path`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ask,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  REPORTER,
  startBugHarness,
  turn,
} from '../test/sandbox/bug-harness.ts';

interface Call {
  service: 'DynamoDB' | 'SFN';
  command: string;
  caller: string;
  start: number;
  end: number;
}

const calls: Call[] = [];
let recording = false;

/** The first frame of ours that is not an adapter: who asked for the call. */
function callerOf(stack: string): string {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((line) => /\(?(?:file:\/\/)?([^()\s]+\.ts):\d+:\d+\)?$/.exec(line.trim())?.[1])
    .filter((file): file is string => file !== undefined && !file.includes('node_modules'))
    .map((file) => file.replace(`${process.cwd()}/`, ''))
    .filter((file) => !file.startsWith('bench/'));
  return frames.find((file) => !file.includes('/adapters/')) ?? frames[0] ?? '?';
}

/** Counts the sends of DynamoDB and Step Functions clients (the document client shares its client's config). */
function countSends(prototype: { send: (...args: never[]) => Promise<unknown> }) {
  const send = prototype.send;
  prototype.send = async function (this: { config?: { serviceId?: string } }, ...args: never[]) {
    const serviceId = this.config?.serviceId;
    const service = serviceId === 'DynamoDB' ? 'DynamoDB' : serviceId === 'SFN' ? 'SFN' : undefined;
    if (!recording || service === undefined) return send.apply(this, args);
    const stack = new Error().stack ?? '';
    // The harness's own reads (polling for the conversation's phase) are not the wake path.
    if (stack.includes(`${process.cwd()}/test/`)) return send.apply(this, args);
    const command = (args[0] as unknown as { constructor: { name: string } }).constructor.name.replace(
      /Command$/,
      '',
    );
    const call: Call = {
      service,
      command,
      caller: callerOf(stack),
      start: performance.now(),
      end: Number.POSITIVE_INFINITY,
    };
    calls.push(call);
    try {
      return await send.apply(this, args);
    } finally {
      call.end = performance.now();
    }
  } as typeof send;
}
// The SDK clients' common base class (Smithy's Client), whose `send` every client and the document client use.
countSends(Object.getPrototypeOf(DynamoDBClient.prototype));

/** Round trips on the critical path: overlapping calls were sent together and count once. */
function sequential(list: readonly Call[]): number {
  let steps = 0;
  let until = Number.NEGATIVE_INFINITY;
  for (const call of [...list].sort((a, b) => a.start - b.start)) {
    if (call.start >= until) steps += 1;
    until = Math.max(until, call.end);
  }
  return steps;
}

const isAgentTurn = (call: Call) => /agents\/|agent-turn/.test(call.caller);

const h = await startBugHarness({}, { timeScale: 0.001 });
try {
  const reportTs = await h.post(CHANNELS.reports, REPORTER, 'checkout is broken');
  const bugId = bugIdFor(reportTs);
  h.script(bugId, [
    ...turn(bugId, ask('Which browser?')),
    ...turn(bugId, findings('Safari drops the session token')),
    ...turn(bugId, findings('Also on Firefox: the session token is dropped')),
  ]);
  const waitsIn = (phase: string) =>
    h.eventually(
      () => h.store.getConversation(bugId, { consistent: true }),
      (c) => c?.wait !== undefined && c.phase === phase,
      `the conversation to wait in ${phase}`,
    );
  await waitsIn('awaiting_reporter');
  await h.sandbox.idle();

  // The wake path: the reporter answers; stop at the next agent turn's first call.
  recording = true;
  await h.post(CHANNELS.reports, REPORTER, 'Safari 17, after I click Pay', reportTs);
  await waitsIn('awaiting_dev');
  recording = false;
  const firstTurnCall = calls.findIndex(isAgentTurn);
  const wake = calls.slice(0, firstTurnCall === -1 ? calls.length : firstTurnCall);

  // The developer round trip: reply in the findings thread, count the states until the next wait.
  const summary = (await h.messages(CHANNELS.summaries)).find((m) => m.bot);
  if (!summary) throw new Error('no findings in #bug-summaries');
  const before = (await h.execution(bugId)).events.length;
  await h.post(CHANNELS.summaries, DEVELOPER, 'does it also happen on Firefox?', summary.ts);
  const after = await h.eventually(
    () => h.execution(bugId),
    (e) =>
      e.events
        .slice(before)
        .some((x) => x.type.endsWith('StateEntered') && x.stateName === 'Wait for developers'),
    'the next wait for developers',
  );
  const execution = (await h.execution(bugId)) as unknown as {
    definition: { States: Record<string, { Type: string }> };
  };
  const types = new Map(Object.entries(execution.definition.States).map(([name, s]) => [name, s.Type]));
  const entered = after.events
    .slice(before)
    .filter((e) => e.type.endsWith('StateEntered') && e.stateName !== undefined)
    .map((e) => e.stateName as string);
  // The woken wait was entered before the reply; the round trip ends as the next one is entered.
  const roundTrip = ['Wait for developers', ...entered.slice(0, entered.indexOf('Wait for developers'))];

  console.log('Wake path (reporter answers -> next agent turn starts):');
  for (const call of wake) {
    console.log(`  ${call.service.padEnd(8)} ${call.command.padEnd(16)} ${call.caller}`);
  }
  console.log(`  calls: ${wake.length}, sequential round trips: ${sequential(wake)}`);
  console.log('');
  console.log('Developer round trip (state transitions from one "Wait for developers" to the next):');
  for (const name of roundTrip) console.log(`  ${(types.get(name) ?? '?').padEnd(7)} ${name}`);
  const light = roundTrip.filter((name) => ['Choice', 'Pass'].includes(types.get(name) ?? '')).length;
  console.log(`  transitions: ${roundTrip.length} (${light} Choice or Pass)`);
} finally {
  await h.stop();
}
