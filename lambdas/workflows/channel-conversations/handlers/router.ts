import type { RouterPart } from '../../../handlers/router.ts';
import { unownedMessages } from '../../../kernel/route.ts';
import { channelAnswerLookup } from '../feedback-lookup.ts';
import { channelConversations, channelRedactionLedger, channelStore } from './wiring.ts';

/**
 * What channel conversations add to the Router: the messages no workflow owns go to
 * `handleChannelMessage` while CHANNEL_CONVERSATIONS is set. The channel conversations module
 * declares this file as its `routerAdditions`; the stack composes it into the Router's bundle.
 */
export const part: RouterPart = {
  additions: (logger) => {
    const take = channelConversations(logger);
    return take ? [unownedMessages(take)] : [];
  },
  // Feedback on a channel answer finds its conversation by the id the answer's block names.
  namedConversations: () => channelAnswerLookup(channelStore()),
  // What a channel message's storing redacts is counted in its conversation's own ledger.
  otherLedger: () => channelRedactionLedger(channelStore()),
};
