import { DynamoTurnConversation } from '../adapters/dynamo-turn-conversation.ts';
import { kernelTableOptions } from './table-options.ts';

let record: DynamoTurnConversation | undefined;

/**
 * An agent turn's view of its conversation's record during the turn (its stops, its ledger), built
 * once per Lambda instance on first use: projections of the few fields it reads, never the whole
 * record and its schemas.
 */
export function turnConversation(): DynamoTurnConversation {
  record ??= new DynamoTurnConversation(kernelTableOptions());
  return record;
}
