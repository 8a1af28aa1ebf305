import * as z from 'zod';
import { ThreadAnchor } from '../kernel/message-kinds.ts';
import { DynamoConversationLedger, readConversationFields } from './conversation-fields.ts';

/**
 * A stop or close requested on the conversation, and its owner: the fields of the conversation
 * record (kernel/model.ts `Conversation`) a running turn reads, with the same rules.
 */
const StopRequestsItem = z.object({
  ownerId: z.string().min(1),
  closeRequested: z.boolean().default(false),
  closeRequestedAt: z.string().optional(),
  stopRequestedAt: z.string().optional(),
});
export type StopRequests = z.infer<typeof StopRequestsItem>;

/** The conversation's threads and owner: where its live progress is shown (progress/target.ts). */
const ThreadsItem = z.object({
  ownerId: z.string().min(1),
  anchors: z.record(z.string(), ThreadAnchor),
});
export type ConversationThreads = z.infer<typeof ThreadsItem> & { id: string };

/**
 * What an agent turn reads and writes of its conversation's record: whether a person stopped or
 * closed it, the threads its progress is shown in, and the ledger the turn's model calls add to. Each read is a projection of those
 * fields, checked by their own schema, so a turn neither reads nor validates the rest of the
 * record (its anchors, approvals, decisions), as the budget's reads do (dynamo-conversation-budget.ts).
 */
export class DynamoTurnConversation extends DynamoConversationLedger {
  /** The record's stop and close requests, read consistently; undefined when there is no record. */
  async stopRequests(conversationId: string): Promise<StopRequests | undefined> {
    return readConversationFields(
      this.doc,
      this.tableName,
      conversationId,
      'ownerId, closeRequested, closeRequestedAt, stopRequestedAt',
      StopRequestsItem,
    );
  }

  /** The record's threads and owner; undefined when there is no record. */
  async threads(conversationId: string): Promise<ConversationThreads | undefined> {
    const item = await readConversationFields(
      this.doc,
      this.tableName,
      conversationId,
      'ownerId, anchors',
      ThreadsItem,
    );
    return item && { id: conversationId, ...item };
  }
}
