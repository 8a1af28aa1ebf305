import { createRouterHandler } from '../../../handlers/router.ts';
import { unownedMessages } from '../../../kernel/route.ts';
import { channelAnswerLookup } from '../feedback-lookup.ts';
import { channelConversations, channelRedactionLedger, channelStore } from './wiring.ts';

/**
 * The Router with channel conversations' addition: the messages no workflow owns go to
 * `handleChannelMessage` while CHANNEL_CONVERSATIONS is set. The channel conversations module
 * declares this file as the Router's entry.
 */
export const handler = createRouterHandler({
  additions: (logger) => {
    const take = channelConversations(logger);
    return take ? [unownedMessages(take)] : [];
  },
  // Feedback on a channel answer finds its conversation by the id the answer's block names.
  namedConversations: () => channelAnswerLookup(channelStore()),
  // What a channel message's storing redacts is counted in its conversation's own ledger.
  otherLedger: () => channelRedactionLedger(channelStore()),
});
