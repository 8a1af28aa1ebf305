import { DynamoRedactionLedger } from '../adapters/dynamo-redaction-ledger.ts';
import type { AgentLogger } from '../agents/ports.ts';
import { ConversationNotFoundError } from '../kernel/errors.ts';
import { systemClock } from '../kernel/ports.ts';
import { type RedactionCounts, tallyingRedactions } from '../redaction/index.ts';
import { kernelTableOptions } from './table-options.ts';

let ledger: DynamoRedactionLedger | undefined;

function redactionLedger(): DynamoRedactionLedger {
  ledger ??= new DynamoRedactionLedger({ ...kernelTableOptions(), clock: systemClock });
  return ledger;
}

/**
 * The ledger of conversations that have no kernel record (a workflow's own, such as a channel
 * conversation's): adds `added` to it and says true when `conversationId` is one of them, else
 * false (the kernel record's ledger counts it).
 */
export type OtherLedger = (conversationId: string, added: RedactionCounts) => Promise<boolean>;

/**
 * Runs an invocation's `work` with what every redaction door replaces tallied, then counts it
 * in each conversation's ledger, once per value (adapters/dynamo-redaction-ledger.ts): the
 * kernel record's, or `other`'s for the conversations it keeps. The ledger is bookkeeping: a
 * count that cannot be written is logged, never fails the invocation.
 */
export function countingRedactions<T>(
  work: () => Promise<T>,
  logger: AgentLogger,
  other?: OtherLedger,
): Promise<T> {
  return tallyingRedactions(work, async (made) => {
    for (const [conversationId, placeholders] of made) {
      await redactionLedger()
        .record(conversationId, placeholders, other)
        .catch((error: unknown) => {
          // A write for an item whose conversation has no record (yet, or any more): nothing to count in.
          if (error instanceof ConversationNotFoundError) return;
          logger.warn('could not count redacted values in the ledger', { conversationId, error });
        });
    }
  });
}
