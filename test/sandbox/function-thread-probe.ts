import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Loaded first in each of the sandbox's function threads (`functionThreads.preload`), for
 * test/sandbox/function-threads.test.ts: names every SDK command sent from the thread on a
 * broadcast channel, with the thread's id. Imported on the main thread (for its channel's
 * name), it watches nothing.
 */

export const PROBE_CHANNEL = 'function-thread-probe';

if (!isMainThread) {
  const channel = new BroadcastChannel(PROBE_CHANNEL);
  channel.unref();
  const base = Object.getPrototypeOf(DynamoDBClient.prototype) as {
    send: (...args: never[]) => Promise<unknown>;
  };
  const send = base.send;
  base.send = function (this: unknown, ...args: never[]) {
    const command = args[0] as unknown as { constructor: { name: string } };
    channel.postMessage({ threadId, command: command.constructor.name });
    return send.apply(this, args);
  } as typeof send;
}
