import { DynamoRedactionLedger } from '../adapters/dynamo-redaction-ledger.ts';
import type { AgentLogger } from '../agents/ports.ts';
import { ConversationNotFoundError } from '../kernel/errors.ts';
import { systemClock } from '../kernel/ports.ts';
import { tallyingRedactions } from '../redaction/index.ts';
import { kernelTableOptions } from './table-options.ts';

let ledger: DynamoRedactionLedger | undefined;

function redactionLedger(): DynamoRedactionLedger {
  ledger ??= new DynamoRedactionLedger({ ...kernelTableOptions(), clock: systemClock });
  return ledger;
}

/**
 * Runs an invocation's `work` with what every redaction door replaces tallied, then counts it
 * in each conversation's ledger, once per value (adapters/dynamo-redaction-ledger.ts). The
 * ledger is bookkeeping: a count that cannot be written is logged, never fails the invocation.
 */
export function countingRedactions<T>(work: () => Promise<T>, logger: AgentLogger): Promise<T> {
  return tallyingRedactions(work, async (made) => {
    for (const [conversationId, placeholders] of made) {
      await redactionLedger()
        .record(conversationId, placeholders)
        .catch((error: unknown) => {
          // A write for an item whose conversation has no record (yet, or any more): nothing to count in.
          if (error instanceof ConversationNotFoundError) return;
          logger.warn('could not count redacted values in the ledger', { conversationId, error });
        });
    }
  });
}
