import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type * as z from 'zod';
import { DynamoConversationLedger } from '../adapters/conversation-fields.ts';
import { inConversation } from '../redaction/index.ts';
import { parseTaskInput } from './parse-task-input.ts';
import { countingRedactions } from './redaction-ledger.ts';
import { kernelTableOptions } from './table-options.ts';

/**
 * A state machine task's handler: validate the input, run as part of the conversation (every
 * line of the invocation carries its id, and every placeholder the redaction layer makes is
 * keyed by it), log one line with the outcome, and add the invocation's time and the values its
 * redaction doors replaced to the conversation's ledger.
 */
export function taskHandler<S extends z.ZodType<{ conversationId: string }>, R>(options: {
  task: string;
  schema: S;
  logger: Logger;
  /**
   * `context` is the Lambda context (its remaining time bounds an agent turn); absent when
   * called without one. `meter` gives the invocation's time so far, for a task that adds it to
   * the ledger in a write it makes anyway (Drain, an agent turn) and then calls
   * `meter.recorded()`: the task then ends without a ledger update of its own.
   */
  run: (input: z.infer<S>, context: Context | undefined, meter: TaskMeter) => Promise<R>;
  /**
   * The invocation's log line's fields. A text from outside the platform among them (a tool's
   * error quoting a file or an API's answer) passes `redactedForLog` first: hence a promise.
   */
  summary: (input: z.infer<S>, output: R) => Record<string, unknown> | Promise<Record<string, unknown>>;
}): TaskHandler<S, R> {
  const { task, schema, logger, run, summary } = options;
  const handler = async (event: unknown, context?: Context): Promise<R> => {
    const started = performance.now();
    let recorded = false;
    const meter: TaskMeter = {
      elapsedMs: () => performance.now() - started,
      recorded: () => {
        recorded = true;
      },
    };
    const input = parseTaskInput(task, schema, event);
    logger.appendKeys({ conversationId: input.conversationId });
    try {
      // Every door of the redaction layer the task passes keys its placeholders by the conversation,
      // and what the doors replace is counted in its ledger.
      const output = await countingRedactions(
        () => inConversation(input.conversationId, () => run(input, context, meter)),
        logger,
      );
      logger.info(`${task} done`, await summary(input, output));
      return output;
    } finally {
      if (!recorded) await addLedger(input.conversationId, started, logger);
      logger.removeKeys(['conversationId']);
    }
  };
  // The schema travels with the handler: the state machines' contract test reads it.
  return Object.assign(handler, { inputSchema: schema });
}

/** A task's handler, carrying the schema its input is validated with. */
export type TaskHandler<S extends z.ZodType, R> = ((event: unknown, context?: Context) => Promise<R>) & {
  readonly inputSchema: S;
};

/** The invocation's time, for a task that puts it in the ledger itself (see `run`). */
export interface TaskMeter {
  elapsedMs(): number;
  recorded(): void;
}

let ledger: DynamoConversationLedger | undefined;

async function addLedger(conversationId: string, started: number, logger: Logger): Promise<void> {
  const lambdaMs = Math.round(performance.now() - started);
  // Added without reading the record: a task's time needs none of its schemas.
  ledger ??= new DynamoConversationLedger(kernelTableOptions());
  // The ledger is bookkeeping: failing to update it must not fail the task.
  await ledger
    .addToLedger(conversationId, { lambdaMs })
    .catch((error: unknown) => logger.warn('could not add to the ledger', { error }));
}
