import * as z from 'zod';
import { ChannelSettingsSchema } from './model.ts';

/**
 * Channel conversations' section of the stack configuration (`slackAgents.channelConversations`,
 * channel conversations): the settings its Router hook and responder read from CHANNEL_CONVERSATIONS, and
 * whether the module is deployed at all.
 */
export const ChannelConversationsConfig = ChannelSettingsSchema.extend({
  /** Answer mentions in channels no workflow owns. @default true */
  enabled: z.boolean().default(true),
});
export type ChannelConversationsConfig = z.infer<typeof ChannelConversationsConfig>;
