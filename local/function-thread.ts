import { parentPort } from 'node:worker_threads';
import type { InvokeReply, InvokeRequest, ThreadedFunction } from './function-threads.ts';
import { type Handler, importHandler, lambdaResult } from './sandbox-functions.ts';
import { lambdaContext } from './sandbox-resources.ts';

/**
 * A worker thread that runs the template's functions (local/function-threads.ts): each handler
 * loaded on its first invocation here, then kept, as in a Lambda instance.
 */

if (!parentPort) throw new Error('local/function-thread.ts runs as a worker thread');
const port = parentPort;
const handlers = new Map<string, Promise<Handler>>();

function handlerOf(fn: ThreadedFunction): Promise<Handler> {
  let handler = handlers.get(fn.logicalId);
  if (!handler) {
    handler = importHandler(fn);
    handlers.set(fn.logicalId, handler);
  }
  return handler;
}

async function run({ id, fn, event }: InvokeRequest): Promise<InvokeReply> {
  try {
    const result = await (await handlerOf(fn))(event, lambdaContext(fn));
    return { id, result: lambdaResult(result) };
  } catch (error) {
    const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
    return { id, error: { name, message, ...(stack !== undefined && { stack }) } };
  }
}

port.on('message', (request: InvokeRequest) => {
  void run(request).then((reply) => port.postMessage(reply));
});
