import type { InboxMessage } from '../../lambdas/kernel/inbox.ts';

/** A Slack message on the inbox, by default the reporter's in the bug-reports channel. */
export function slackMessage(overrides: Partial<InboxMessage> & { ts: string }): InboxMessage {
  return {
    kind: 'message',
    eventId: `Ev${overrides.ts}`,
    channel: 'C_BUGS',
    user: 'U_REPORTER',
    text: 'checkout fails with a 500',
    mentionsBot: false,
    receivedAt: '2015-11-21T12:00:00Z',
    ...overrides,
  };
}
