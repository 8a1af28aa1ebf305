import { requirePriceOf } from '../lambdas/agents/pricing.ts';
import { CHANNEL_ANSWER_KINDS } from '../lambdas/workflows/channel-conversations/answer-kinds.ts';
import { ChannelConversationsConfig } from '../lambdas/workflows/channel-conversations/config.ts';
import { CHANNEL_ENV } from '../lambdas/workflows/channel-conversations/env.ts';
import { channelRecords } from './channel-conversations-records.ts';
import { defineWorkflowModule } from './workflow-module.ts';

/**
 * Channel conversations: no state machine. Its Router additions record the messages
 * no workflow owns in the channel's one active conversation and hands them on, through a
 * FIFO queue grouped by channel, to its ChannelResponder, which decides, calls the model and
 * posts. Off (`enabled: false`): neither the queue nor the responder exists, and the Router's
 * hook is off (CHANNEL_CONVERSATIONS unset).
 */
export const CHANNEL_CONVERSATIONS_MODULE = defineWorkflowModule<
  'ChannelResponder',
  ChannelConversationsConfig
>({
  name: 'channel_conversations',
  answerKinds: CHANNEL_ANSWER_KINDS,
  settings: { key: 'channelConversations', schema: ChannelConversationsConfig },
  roles: [],
  functions: {
    /**
     * Decides and answers one channel message (a model call, the judge's too, with their
     * retries), one channel's messages in order.
     */
    ChannelResponder: {
      entry: 'lambdas/workflows/channel-conversations/handlers/channel-responder.ts',
      timeoutSeconds: 120,
      memoryMb: 512,
      access: { table: 'read_write', slackSecret: true, modelSecret: true },
    },
  },
  routerAdditions: 'lambdas/workflows/channel-conversations/handlers/router.ts',
  queues: {
    /** One message per invocation: each may take a model call (and the judge's) with retries. */
    ChannelReplies: {
      consumer: 'ChannelResponder',
      batchSize: 1,
      senders: ['Router'],
      urlVariable: CHANNEL_ENV.repliesQueueUrl,
      deadLetterUrlVariable: CHANNEL_ENV.repliesDeadLetterQueueUrl,
    },
  },
  environment: ({ enabled: _enabled, ...settings }, kernel) => ({
    [CHANNEL_ENV.settings]: JSON.stringify(settings),
    // Priced like the agents' model (MODEL_PRICE): an unpriced judge fails the synth.
    ...(settings.useLlmJudge
      ? {
          [CHANNEL_ENV.judgePrice]: JSON.stringify(requirePriceOf(settings.judgeModelId, kernel.modelPrices)),
        }
      : {}),
  }),
  enabled: (settings) => settings.enabled,
  // The console lists channel conversations from their own records (no kernel record, no execution).
  sandboxRecords: (table) => channelRecords(table),
  // The judge is a second model the responder calls.
  models: (settings) => (settings.useLlmJudge ? [settings.judgeModelId] : []),
});
