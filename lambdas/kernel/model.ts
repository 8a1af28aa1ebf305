import * as z from 'zod';
import { DecisionRecord, OpenApproval } from './approvals.ts';
import { MessageType, SenderType, ThreadAnchor } from './message-kinds.ts';

export { MessageType, SenderType, ThreadAnchor };

/**
 * The conversation kernel's records. Items are validated with these schemas
 * when read from DynamoDB; the TypeScript types are inferred from them.
 */

/** The bot's own role: its posts are recorded with it, and no wait accepts it. */
export const BOT_ROLE = 'bot';

/** What a wait accepts: any incoming message, or only messages from the listed sender types. */
export const WaitAccepts = z.union([z.literal('any'), z.array(SenderType).min(1)]);
export type WaitAccepts = z.infer<typeof WaitAccepts>;

export const OpenWait = z.object({
  waitId: z.string().min(1),
  taskToken: z.string().min(1),
  accepts: WaitAccepts,
  since: z.string(),
});
export type OpenWait = z.infer<typeof OpenWait>;

export const Ledger = z.object({
  inputTokens: z.number().int().nonnegative().default(0),
  outputTokens: z.number().int().nonnegative().default(0),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  /** Of `inputTokens`, those written to the prompt cache (priced apart). */
  cacheWriteTokens: z.number().int().nonnegative().default(0),
  /** The model calls' estimated cost in micro-dollars, priced per call (lambdas/agents/pricing.ts). */
  costMicroUsd: z.number().int().nonnegative().default(0),
  transitions: z.number().int().nonnegative().default(0),
  lambdaMs: z.number().nonnegative().default(0),
  /**
   * Values the redaction layer replaced at any door of the conversation (lambdas/redaction),
   * each value once however many doors it passed: secrets...
   */
  redactedSecrets: z.number().int().nonnegative().default(0),
  /** ...and personal data. */
  redactedPii: z.number().int().nonnegative().default(0),
  /** The same values by `family:kind` (`secret:aws-access-key`, `pii:email`): counts, never the values. */
  redactedKinds: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Calls made to MCP servers' tools (docs/mcp.md), held to `mcp.maxCallsPerConversation`. */
  mcpCalls: z.number().int().nonnegative().default(0),
});
export type Ledger = z.infer<typeof Ledger>;

/**
 * A conversation's status (lower snake case). The kernel's are `active` and the finished
 * ones (`FINISHED_STATUSES`); a workflow module declares its own further statuses (the bug
 * investigation's `pending_verification`), which the kernel treats as not finished.
 */
export const ConversationStatus = z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a status such as active');
export type ConversationStatus = z.infer<typeof ConversationStatus>;

/** The statuses the kernel itself sets or acts on. */
export const KERNEL_STATUSES = ['active', 'resolved', 'closed', 'failed'] as const;

/** A conversation in one of these has ended: the Router stores nothing more for it. */
export const FINISHED_STATUSES: ReadonlySet<string> = new Set(['resolved', 'closed', 'failed']);

export const Conversation = z.object({
  id: z.string().min(1),
  workflow: z.string().min(1),
  status: ConversationStatus,
  phase: z.string(),
  ownerId: z.string().min(1),
  participants: z.record(z.string(), SenderType),
  /** The Slack threads this conversation owns, keyed by `anchorKey(channel, threadTs)`. */
  anchors: z.record(z.string(), ThreadAnchor),
  /** Whether the owner's close intent ends the conversation (copied from the workflow's registration). */
  closeOnIntent: z.boolean().default(true),
  executionName: z.string().optional(),
  executionArn: z.string().optional(),
  sessionId: z.string().optional(),
  closeRequested: z.boolean().default(false),
  /** When the close was first requested (a turn running then stops at its next step). */
  closeRequestedAt: z.string().optional(),
  /** When a person last stopped the running turn (Stop): a turn running then ends; nothing else changes. */
  stopRequestedAt: z.string().optional(),
  /** The agent turns running now (kernel/running-turns.ts): stored as a string set, read as a list. */
  runningTurns: z
    .preprocess((value) => (value instanceof Set ? [...value] : value), z.array(z.string()))
    .optional(),
  wait: OpenWait.optional(),
  /** The approval open now per decision kind (kernel/approvals.ts); apart from `wait`. */
  approvals: z.record(z.string(), OpenApproval).optional(),
  /** Every decision taken with buttons, in order, for audit. */
  decisions: z.array(DecisionRecord).optional(),
  ledger: Ledger.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  ttl: z.number().int().optional(),
});
export type Conversation = z.infer<typeof Conversation>;

export const StoredMessage = z.object({
  conversationId: z.string().min(1),
  ts: z.string().min(1),
  channel: z.string().min(1),
  threadTs: z.string().optional(),
  senderType: SenderType,
  senderId: z.string().min(1),
  messageType: MessageType,
  text: z.string(),
  /** For `action` messages: the button's action id and value. */
  actionId: z.string().optional(),
  actionValue: z.string().optional(),
  /**
   * The outside item whose text this is, the same through its edits (a GitHub comment:
   * `github-comment:<id>`); absent for Slack, where an edit is not delivered at all.
   */
  sourceId: z.string().optional(),
  receivedAt: z.string(),
  /** The turn that received this message; absent while the message is pending. */
  deliveredInTurn: z.number().int().nonnegative().optional(),
  ttl: z.number().int().optional(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

export function anchorKey(channel: string, threadTs: string): string {
  return `${channel}#${threadTs}`;
}

/** Does an open wait accept a message from this sender type? */
export function waitAccepts(accepts: WaitAccepts, senderType: SenderType): boolean {
  if (senderType === BOT_ROLE) return false;
  return accepts === 'any' || accepts.includes(senderType);
}
