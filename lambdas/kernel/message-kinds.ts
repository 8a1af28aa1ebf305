import * as z from 'zod';

/**
 * Who sent a message, what kind it is, and the thread it came in: the small schemas a message
 * carries wherever it goes. A module apart from the conversation's records (model.ts, which
 * re-exports them), so what reads only messages or threads (an agent turn's input, its
 * progress's thread) builds these and not the whole record.
 */

/**
 * Who sent a message, as the workflow sees it: a role (lower snake case). The kernel knows
 * `bot` only; each workflow module declares its own roles (`reporter`, `developer`...), which
 * the Router assigns per thread anchor.
 */
export const SenderType = z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a role name such as reporter');
export type SenderType = z.infer<typeof SenderType>;

export const MessageType = z.enum(['message', 'close', 'action', 'bot']);
export type MessageType = z.infer<typeof MessageType>;

/**
 * A Slack thread the conversation owns, and how senders in it are classified:
 * the owner (e.g. the reporter) gets `ownerRole`; anyone else gets `othersRole`,
 * or is ignored when `othersRole` is null (a third party in the reporter's thread).
 */
export const ThreadAnchor = z.object({
  name: z.string().min(1),
  channel: z.string().min(1),
  threadTs: z.string().min(1),
  ownerRole: SenderType.nullable(),
  othersRole: SenderType.nullable(),
});
export type ThreadAnchor = z.infer<typeof ThreadAnchor>;
