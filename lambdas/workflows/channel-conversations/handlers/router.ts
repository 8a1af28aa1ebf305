import { createRouterHandler } from '../../../handlers/router.ts';
import { channelConversations } from './wiring.ts';

/**
 * The Router with channel conversations: the messages no workflow owns go to
 * `handleChannelMessage` while CHANNEL_CONVERSATIONS is set. The channel conversations module
 * declares this file as the Router's entry.
 */
export const handler = createRouterHandler({ unownedMessages: (logger) => channelConversations(logger) });
