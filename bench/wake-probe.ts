import { BroadcastChannel } from 'node:worker_threads';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * What the handlers send, for bench/wake-load.ts: the calls that mark a wake's stages, observed
 * on the SDK clients' common base class (Smithy's Client, whose `send` every client and the
 * document client use) and on `fetch` (the model client's requests). Loaded on the bench's main
 * thread and, when the sandbox runs its functions in worker threads, first in each of them
 * (`functionThreads.preload`): every thread posts what it saw on one broadcast channel, which
 * the bench reads. Times are `Date.now()`, one clock for all threads.
 */

export const WAKE_PROBE_CHANNEL = 'wake-load-probe';

export type ProbeRecord =
  /** The Router's write of a message (its inbox item) returned. */
  | { kind: 'inbox-item'; text: string; at: number }
  /** RegisterWait opened a wait with this token. */
  | { kind: 'wait'; conversationId: string; token: string; at: number }
  /** A turn's reservation on its conversation's budget returned. */
  | { kind: 'reservation'; conversationId: string; at: number }
  /** The ingress sent a message to the inbox queue (SendMessage's start). */
  | { kind: 'enqueued'; body: string; at: number }
  /** A wait's token handed back (SendTaskSuccess returned), and by whom. */
  | { kind: 'token'; token: string; by: string; at: number }
  /** Drain's read of the pending messages for one turn: sent and returned. */
  | { kind: 'drain-read'; conversationId: string; turn: number; start: number; end: number }
  /** One update of the day's spend counter (one item all turns share), and how long it took. */
  | { kind: 'day-counter'; ms: number }
  /** A model request as the turn's model client sent it. */
  | { kind: 'model'; body: string; at: number };

const channel = new BroadcastChannel(WAKE_PROBE_CHANNEL);
channel.unref();
const report = (record: ProbeRecord) => channel.postMessage(record);

const CONVERSATION_PK = /^CONV#(.+)$/;
const conversationOf = (key: unknown): string | undefined =>
  CONVERSATION_PK.exec(String((key as { pk?: unknown } | undefined)?.pk ?? ''))?.[1];

/** The whole stack: the SDK's middleware alone fills the default ten frames. */
function deepStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack;
}

/** Who handed a wait's token back: the wake protocol's two sides (kernel/wake.ts), or the reconciler. */
function tokenSender(stack: string): string {
  // RegisterWait's frame is not on the stack (it returns the promise): its helper's is.
  if (/\/kernel\/route[\w-]*\.ts/.test(stack)) return 'Router';
  if (stack.includes('/reconcile.ts')) return 'Reconciler';
  return stack.includes('at wakeIfDue') ? 'RegisterWait' : '?';
}

function observe(command: string, input: Record<string, unknown>, stack: string, at: number): void {
  if (command === 'Put') {
    const item = input.Item as { sk?: unknown; text?: unknown } | undefined;
    if (typeof item?.sk === 'string' && item.sk.startsWith('MSG#') && typeof item.text === 'string')
      report({ kind: 'inbox-item', text: item.text, at });
    return;
  }
  if (command === 'Update') {
    const conversationId = conversationOf(input.Key);
    if (conversationId === undefined) return;
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const names = (input.ExpressionAttributeNames ?? {}) as Record<string, unknown>;
    const wait = values[':wait'] as { taskToken?: unknown } | undefined;
    if (wait && typeof wait.taskToken === 'string' && ':phase' in values)
      report({ kind: 'wait', conversationId, token: wait.taskToken, at });
    else if (String(names['#open'] ?? '').startsWith('reservation#'))
      report({ kind: 'reservation', conversationId, at });
    return;
  }
  if (command === 'SendMessage' && typeof input.MessageBody === 'string') {
    report({ kind: 'enqueued', body: input.MessageBody, at });
    return;
  }
  if (command === 'SendTaskSuccess' && typeof input.taskToken === 'string')
    report({ kind: 'token', token: input.taskToken, by: tokenSender(stack), at });
}

/** Times Drain's reads of the pending messages: a query of a conversation's messages for one turn. */
async function observeQuery(input: Record<string, unknown>, send: () => Promise<unknown>): Promise<unknown> {
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const conversationId = CONVERSATION_PK.exec(String(values[':pk'] ?? ''))?.[1];
  const turn = values[':turn'];
  const start = Date.now();
  const result = await send();
  if (conversationId !== undefined && typeof turn === 'number')
    report({ kind: 'drain-read', conversationId, turn, start, end: Date.now() });
  return result;
}

function watchSends(prototype: { send: (...args: never[]) => Promise<unknown> }) {
  const send = prototype.send;
  prototype.send = async function (this: unknown, ...args: never[]) {
    const command = args[0] as unknown as { constructor: { name: string }; input?: Record<string, unknown> };
    const name = command.constructor.name.replace(/Command$/, '');
    if (name === 'Query') return observeQuery(command.input ?? {}, () => send.apply(this, args));
    if (!['Put', 'Update', 'SendTaskSuccess', 'SendMessage'].includes(name)) return send.apply(this, args);
    const stack = name === 'SendTaskSuccess' ? deepStack() : '';
    const sentAt = Date.now();
    const result = await send.apply(this, args);
    const key = (command.input?.Key as { pk?: unknown } | undefined)?.pk;
    if (name === 'Update' && typeof key === 'string' && key.startsWith('SPEND#'))
      report({ kind: 'day-counter', ms: Date.now() - sentAt });
    // The queue may hand a message to a Router before its SendMessage has returned.
    observe(name, command.input ?? {}, stack, name === 'SendMessage' ? sentAt : Date.now());
    return result;
  } as typeof send;
}
watchSends(Object.getPrototypeOf(DynamoDBClient.prototype));

const fetchOf = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (url.endsWith('/v1/messages') && typeof init?.body === 'string')
    report({ kind: 'model', body: init.body, at: Date.now() });
  return fetchOf(input, init);
};
