import * as z from 'zod';
import type { ConversationBudgetStore } from '../agents/limit-checks.ts';
import type { TranscriptStore } from '../agents/ports.ts';
import type { ConversationReservations } from '../agents/reservations.ts';
import { ThreadAnchor } from '../kernel/message-kinds.ts';
import {
  conversationFields,
  DynamoConversationLedger,
  readConversationFields,
} from './conversation-fields.ts';
import { expiredIn, spendIn, type TurnEnd } from './dynamo-conversation-budget.ts';
import type { DynamoTranscriptStore } from './dynamo-transcripts.ts';

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
 * What an agent turn reads and writes of its conversation's record during the turn: whether a
 * person stopped or closed it, and the ledger the turn's model calls add to. A stop check is a
 * projection of those fields, checked by their own schema, so it neither reads nor validates
 * the rest of the record (its anchors, approvals, decisions). What the turn reads at its start
 * comes from `TurnStartRecord` (below).
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

/**
 * The conversation's record as the update that notes a turn running left it
 * (`DynamoRunningTurns.started`, which returns it): what the turn reads of its record at its
 * start is read from here instead of asking for the record again, one request for them all:
 * the threads its progress is shown in, the conversation its MCP toolsets open for, what it
 * spent so far and the reservations an earlier invocation left to expire. Its stop checks still
 * read the record: a stop counts from the turn's start on.
 */
export class TurnStartRecord {
  constructor(
    readonly conversationId: string,
    /** The record's item, as DynamoDB returned it. */
    readonly item: Record<string, unknown>,
  ) {}

  /** The record's threads and owner. */
  threads(): ConversationThreads {
    return { id: this.conversationId, ...conversationFields(this.conversationId, this.item, ThreadsItem) };
  }

  /**
   * `store`, with what this conversation spent answered from the record, and how a turn of it
   * ended handed to `noteTurnEnd` (the turn writes it in the update that ends its running-turn
   * note, `DynamoRunningTurns.ended`, not in an update of its own).
   */
  budget(store: ConversationBudgetStore, noteTurnEnd: (end: TurnEnd) => void): ConversationBudgetStore {
    return {
      spend: async (conversationId) =>
        conversationId === this.conversationId
          ? spendIn(conversationId, this.item)
          : store.spend(conversationId),
      recordTurnEnd: async (conversationId, turn, continued) => {
        if (conversationId === this.conversationId) noteTurnEnd({ turn, continued });
        else await store.recordTurnEnd(conversationId, turn, continued);
      },
    };
  }

  /**
   * `store`, saving a transcript without naming its session on the record again when the record
   * names that session already.
   */
  transcripts(store: DynamoTranscriptStore): TranscriptStore {
    return {
      load: (...args) => store.load(...args),
      save: (conversationId, sessionId, turn, messages) =>
        store.save(conversationId, sessionId, turn, messages, {
          sessionNamed: conversationId === this.conversationId && this.item.sessionId === sessionId,
        }),
    };
  }

  /** `store`, with this conversation's expired reservations found in the record. */
  reservations(store: ConversationReservations): ConversationReservations {
    return {
      reserve: (...args) => store.reserve(...args),
      settle: (...args) => store.settle(...args),
      add: (...args) => store.add(...args),
      expired: async (conversationId, nowMs) =>
        conversationId === this.conversationId
          ? expiredIn(this.item, nowMs)
          : store.expired(conversationId, nowMs),
    };
  }
}
