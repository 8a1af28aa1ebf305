import * as z from 'zod';
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

/**
 * What an agent turn reads and writes of its conversation's record: whether a person stopped or
 * closed it, and the ledger the turn's model calls add to. Each read is a projection of those
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
}
