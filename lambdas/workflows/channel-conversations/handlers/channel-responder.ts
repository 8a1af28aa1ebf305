import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { fifoQueueHandler } from '../../../handlers/fifo-batch.ts';
import { inConversation } from '../../../redaction/index.ts';
import { MissingConfigurationError } from '../../../shared/env.ts';
import { createLogger, createMetrics } from '../../../shared/logger.ts';
import { CHANNEL_ENV } from '../env.ts';
import { ReplyJob } from '../model.ts';
import { type ResponderDeps, respondToMessage } from '../respond-to-message.ts';
import { channelSettings, responderDeps } from './wiring.ts';

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
  // The answer's prompt, post and stored records key their placeholders by the conversation.
  const outcome = await inConversation(job.conversationId, () => respondToMessage(job, ready));
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
