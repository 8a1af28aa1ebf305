import type { Clock } from './clock.ts';
import { PeopleDirectory } from './people.ts';
import type { RouterPorts } from './route-types.ts';

/**
 * The kernel's own Router ports, for what a deployment does not wire (the Router's handler
 * spreads what it has over them): routing runs as it is, no GitHub login (an App), no
 * configured roles (the thread's roles are taken as they are), notices that tell no one (an
 * ended conversation's message and a repeated trigger are ignored with their reasons alone),
 * and stops taken silently. Approval presses need the deployment's: without them a press fails
 * its record, loudly, rather than be dropped.
 */
export function routerDefaults(clock: Clock): RouterPorts {
  return {
    inConversation: (_conversationId, work) => work(),
    githubLogin: undefined,
    people: new PeopleDirectory({}, { members: async () => [] }, clock),
    endedNotice: async () => 'untold',
    retriggered: async () => 'untold',
    approvals: () => Promise.reject(new Error('approval presses are not wired in this Router')),
    stops: { said: async () => {}, refused: async () => {} },
  };
}
