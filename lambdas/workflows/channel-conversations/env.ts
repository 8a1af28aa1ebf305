/**
 * Channel conversations' environment variables, set by the stack from the module's
 * declaration (statemachines/channel-conversations.ts) and read by its Router part and its
 * ChannelResponder.
 */
export const CHANNEL_ENV = {
  /** JSON channel conversation settings (Router and ChannelResponder; absent: channel conversations off). */
  settings: 'CHANNEL_CONVERSATIONS',
  /** URL of the SQS FIFO queue the Router hands channel messages to and the ChannelResponder reads. */
  repliesQueueUrl: 'CHANNEL_REPLIES_QUEUE_URL',
  /** URL of the channel replies queue's dead-letter queue (records the ChannelResponder can never read). */
  repliesDeadLetterQueueUrl: 'CHANNEL_REPLIES_DLQ_URL',
  /**
   * JSON `ModelPrice` of the judge's model, when the judge is on (the answering model's is the
   * kernel's MODEL_PRICE), so its calls count in the daily spend too.
   */
  judgePrice: 'CHANNEL_JUDGE_PRICE',
} as const;
