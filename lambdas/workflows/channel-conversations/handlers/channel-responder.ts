import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { fifoQueueHandler } from '../../../handlers/fifo-batch.ts';
import { countingRedactions } from '../../../handlers/redaction-ledger.ts';
import { inConversation } from '../../../redaction/index.ts';
import { MissingConfigurationError } from '../../../shared/env.ts';
import { createLogger, createMetrics } from '../../../shared/logger.ts';
import { CHANNEL_ENV } from '../env.ts';
import { ReplyJob } from '../model.ts';
import { type ResponderDeps, respondToMessage } from '../respond-to-message.ts';
import { channelRedactionLedger, channelSettings, responderDeps } from './wiring.ts';

const logger = createLogger('channel-responder');
const metrics = createMetrics('channel-responder');

/** Built on the first job of an instance (the model and Slack secrets are read then), then reused. */
let deps: Promise<ResponderDeps> | undefined;

function depsOnce(): Promise<ResponderDeps> {
  deps ??= (async () => {
    const settings = channelSettings();
    if (settings === undefined) throw new MissingConfigurationError(CHANNEL_ENV.settings);
    return responderDeps(settings, logger);
  })().catch((error: unknown) => {
    deps = undefined;
    throw error;
  });
  return deps;
}

async function respond(job: ReplyJob): Promise<void> {
  const ready = await depsOnce();
  const started = performance.now();
  // The answer's prompt, post and stored records key their placeholders by the conversation,
  // and what they redact is counted in the conversation's ledger, with the model calls' tokens
  // and cost (spending.ts) and the time this job took.
  const outcome = await countingRedactions(
    () => inConversation(job.conversationId, () => respondToMessage(job, ready)),
    logger,
    channelRedactionLedger(ready.store),
  );
  await ready.store
    .addToLedger(job.conversationId, { lambdaMs: Math.round(performance.now() - started) })
    .catch((error: unknown) => logger.warn("could not add to the channel conversation's ledger", { error }));
  logger.info('handled channel message', { conversationId: job.conversationId, ts: job.ts, outcome });
  metrics.addMetric(`Reply_${outcome.answer}`, MetricUnit.Count, 1);
}

const REPLY_JOBS = {
  schema: ReplyJob,
  describe: 'reply job',
  deadLetterQueueEnv: CHANNEL_ENV.repliesDeadLetterQueueUrl,
};

/**
 * Decides and answers channel conversation messages, one channel's in order (the queue's
 * message groups are channels). A message whose answer fails is retried with the rest of its
 * channel held back; the answer claim keeps a retry from answering twice.
 */
export const handler = fifoQueueHandler(REPLY_JOBS, respond, { logger, metrics });
