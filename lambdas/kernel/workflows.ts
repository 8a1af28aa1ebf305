import * as z from 'zod';
import { SenderType } from './model.ts';

/**
 * How a conversation of a workflow begins. The stack writes one registration per workflow
 * into the Router's environment (`WORKFLOWS`); the Router starts the named state machine.
 */
export const Trigger = z.discriminatedUnion('type', [
  /** A top-level message in this channel (the bug-reports channel, seed 000). */
  z.object({ type: z.literal('channel_message'), channel: z.string().min(1) }),
  /**
   * A slash command such as `/prd`; `description` and `usageHint` are what Slack shows in its
   * command menu (the app manifest, `npm run slack:manifest`).
   */
  z.object({
    type: z.literal('slash_command'),
    command: z.string().startsWith('/'),
    description: z.string().min(1).max(2000).optional(),
    usageHint: z.string().min(1).max(1000).optional(),
  }),
  /**
   * A top-level message that mentions the bot, in a channel no `channel_message` trigger owns.
   * Without `keywords` and `channels` every such mention matches; with them, only a mention in
   * one of `channels`, or one whose text (the bot's mention taken out) begins with one of
   * `keywords` as a whole word or phrase, e.g. `@bot idea: dark mode` for the keyword `idea`.
   */
  z.object({
    type: z.literal('mention'),
    keywords: z.array(z.string().trim().min(1)).optional(),
    channels: z.array(z.string().min(1)).optional(),
  }),
]);
export type Trigger = z.infer<typeof Trigger>;

export const WorkflowRegistration = z.object({
  workflow: z.string().regex(/^[a-z][a-z0-9_]*$/),
  stateMachineArn: z.string().min(1),
  triggers: z.array(Trigger).min(1),
  /** Role of the person who started the conversation, in its first thread. */
  ownerRole: SenderType,
  /** Role of anyone else writing in that thread; null ignores them (seed 000's third party). */
  othersRole: SenderType.nullable(),
  /** Whether the owner's close intent ("never mind", "cancel") ends the conversation. */
  closeOnIntent: z.boolean().default(true),
});
export type WorkflowRegistration = z.infer<typeof WorkflowRegistration>;

export const WorkflowRegistrations = z.array(WorkflowRegistration);
