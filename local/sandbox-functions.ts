import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { FunctionThreads } from './function-threads.ts';
import { type FunctionInfo, lambdaContext } from './sandbox-resources.ts';
import { UnsupportedTemplateError } from './template.ts';

/** A Lambda handler as the sandbox calls it. */
export type Handler = (event: unknown, context: Context) => Promise<unknown>;

const fromRoot = (file: string) => import(pathToFileURL(`${process.cwd()}/${file}`).href);

/**
 * A function's handler: its entry's `handler`, or, for an entry with parts, its `compose`
 * applied to each part's `part` in order, as the deployed bundle's entry does
 * (infra/constructs/function-bundle.ts).
 */
export async function importHandler(info: Pick<FunctionInfo, 'entry' | 'parts'>): Promise<Handler> {
  if (info.parts.length === 0) return ((await fromRoot(info.entry)) as { handler: Handler }).handler;
  const [entry, ...parts] = await Promise.all([info.entry, ...info.parts].map(fromRoot));
  return (entry as { compose: (parts: readonly unknown[]) => Handler }).compose(
    parts.map((part) => (part as { part: unknown }).part),
  );
}

/** A handler's result as Lambda hands it back: through JSON, `null` for nothing. */
export function lambdaResult(result: unknown): unknown {
  return result === undefined ? null : JSON.parse(JSON.stringify(result));
}

/**
 * The template's functions, run in this process: each handler module imported from its entry
 * on first use, invoked with a copy of the event and a Lambda context, its result passed
 * through JSON as Lambda's would be; on the main thread, or in `threads` when given
 * (local/function-threads.ts). Agent turns in flight are counted per conversation (the
 * console shows the bot "thinking" meanwhile); a function that throws is logged at WARN.
 */
export function inProcessFunctions(
  functions: ReadonlyMap<string, FunctionInfo>,
  options: {
    log: { warn(message: string, details?: Record<string, unknown>): void };
    onChange: () => void;
    threads?: FunctionThreads;
  },
) {
  const { threads } = options;
  const handlers = new Map<string, Promise<Handler>>();
  const handlerOf = (logicalId: string): Promise<Handler> => {
    let handler = handlers.get(logicalId);
    if (!handler) {
      const info = functions.get(logicalId);
      if (!info) throw new UnsupportedTemplateError(`no function ${logicalId} in the template`);
      handler = threads
        ? Promise.resolve(async (event: unknown) => threads.invoke(info, event))
        : importHandler(info);
      handlers.set(logicalId, handler);
    }
    return handler;
  };
  const agentTurnsRunning = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  const invoke = (logicalId: string, event: unknown): Promise<unknown> => {
    const call = run(logicalId, event);
    inFlight.add(call);
    const done = () => inFlight.delete(call);
    call.then(done, done);
    return call;
  };
  const run = async (logicalId: string, event: unknown): Promise<unknown> => {
    const info = functions.get(logicalId);
    const handler = await handlerOf(logicalId);
    const conversationId =
      info?.agentTurn === true
        ? String((event as { conversationId?: unknown }).conversationId ?? '')
        : undefined;
    if (conversationId !== undefined) {
      agentTurnsRunning.set(conversationId, (agentTurnsRunning.get(conversationId) ?? 0) + 1);
      options.onChange();
    }
    try {
      const context = lambdaContext(info ?? { logicalId, timeoutSeconds: 30 });
      // A thread gets the event as a copy and hands back a Lambda result already.
      return threads
        ? await handler(event, context)
        : lambdaResult(await handler(structuredClone(event), context));
    } catch (error) {
      options.log.warn(`Lambda ${logicalId} failed`, {
        error,
        ...(conversationId ? { conversationId } : {}),
      });
      throw error;
    } finally {
      if (conversationId !== undefined) {
        const left = (agentTurnsRunning.get(conversationId) ?? 1) - 1;
        if (left > 0) agentTurnsRunning.set(conversationId, left);
        else agentTurnsRunning.delete(conversationId);
      }
      options.onChange();
    }
  };
  return {
    handlerOf,
    invoke,
    agentTurnsRunning,
    /** Invocations that have not ended yet. */
    inFlight: () => inFlight.size,
    /** Resolves true once no invocation is in flight, false if some still are after `timeoutMs`. */
    async settled(timeoutMs: number): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      while (inFlight.size > 0) {
        const left = deadline - Date.now();
        if (left <= 0) return false;
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.allSettled([...inFlight]),
          new Promise((resolve) => {
            timer = setTimeout(resolve, left);
          }),
        ]);
        clearTimeout(timer);
      }
      return true;
    },
    /** Drops the loaded handler modules (the next invocation imports them again) and the turn counts. */
    async forget(): Promise<void> {
      handlers.clear();
      agentTurnsRunning.clear();
      await threads?.restart();
    },
    /** Ends the function threads, if any. */
    async close(): Promise<void> {
      await threads?.close();
    },
  };
}
