import * as z from 'zod';

/**
 * What the ingress puts on the SQS FIFO inbox and the Router takes off it: Slack's
 * payloads reduced to the facts the kernel routes on. The raw Slack shapes stay at the
 * ingress; this is the contract between the two Lambdas.
 */

const Common = {
  /** Slack event id, or the payload's trigger id: the SQS deduplication id. */
  eventId: z.string().min(1),
  teamId: z.string().optional(),
  channel: z.string().min(1),
  user: z.string().min(1),
  /** When the ingress accepted it (ISO 8601). */
  receivedAt: z.string(),
};

export const InboxMessage = z.object({
  kind: z.literal('message'),
  ...Common,
  text: z.string(),
  ts: z.string().min(1),
  threadTs: z.string().optional(),
  /** True when the bot was mentioned (`app_mention`, or `<@BOT>` in the text). */
  mentionsBot: z.boolean(),
});
export type InboxMessage = z.infer<typeof InboxMessage>;

export const InboxSlashCommand = z.object({
  kind: z.literal('slash_command'),
  ...Common,
  command: z.string().min(1),
  text: z.string(),
  /** A synthetic, deterministic ts for storing the command as the conversation's first message. */
  ts: z.string().min(1),
  responseUrl: z.string().optional(),
});
export type InboxSlashCommand = z.infer<typeof InboxSlashCommand>;

export const InboxAction = z.object({
  kind: z.literal('action'),
  ...Common,
  actionId: z.string().min(1),
  value: z.string().optional(),
  /** ts of the message holding the button, and the root of its thread. */
  messageTs: z.string().min(1),
  threadTs: z.string().optional(),
  /** Deterministic ts for storing the action (the action_ts Slack sends). */
  ts: z.string().min(1),
});
export type InboxAction = z.infer<typeof InboxAction>;

export const InboxEnvelope = z.discriminatedUnion('kind', [InboxMessage, InboxSlashCommand, InboxAction]);
export type InboxEnvelope = z.infer<typeof InboxEnvelope>;

/**
 * The SQS message group: one per Slack thread (the conversation key), so the Router sees
 * a thread's messages in Slack's order while different threads proceed in parallel.
 * Channel conversations (lambdas/channel) keep this grouping rather than one group per
 * channel: a thread's root and its replies must share a group, and per-channel order is not
 * needed for correctness there (messages sort by Slack ts, last activity only moves forward,
 * and conditional writes keep one conversation per channel and one answer per message).
 */
export function messageGroupId(envelope: InboxEnvelope): string {
  switch (envelope.kind) {
    case 'message':
      return `${envelope.channel}:${envelope.threadTs ?? envelope.ts}`;
    case 'action':
      return `${envelope.channel}:${envelope.threadTs ?? envelope.messageTs}`;
    case 'slash_command':
      return `${envelope.channel}:${envelope.command}:${envelope.user}`;
  }
}

/** SQS deduplication ids allow alphanumerics and punctuation, up to 128 characters. */
export function deduplicationId(envelope: InboxEnvelope): string {
  return envelope.eventId.replace(/[^\w!"#$%&'()*+,\-./:;<=>?@[\\\]^`{|}~]/g, '_').slice(0, 128);
}
