import * as z from 'zod';

/**
 * Who sent a message and what kind it is: the two small schemas a message carries wherever it
 * goes. A module apart from the conversation's records (model.ts, which re-exports them), so
 * what reads only messages (an agent turn's input) builds these and not the whole record.
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
