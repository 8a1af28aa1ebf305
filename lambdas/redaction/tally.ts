import { processStorage } from '../shared/kept.ts';

/**
 * The placeholders the redaction layer made during one invocation, by the conversation each was
 * made for: what the invocation's doors replaced, for the conversation's ledger. Placeholders
 * name a kind and a tag, never a value; one made twice (the same value at two doors, or twice
 * in one text) is one entry, so the ledger counts values, not sightings.
 */
export type MadePlaceholders = Map<string, Set<string>>;

const current = processStorage<MadePlaceholders>('redaction-tally');

/** Notes placeholders made for `conversationId`, when an invocation is tallying them (a no-op otherwise). */
export function noteMade(conversationId: string, placeholders: Iterable<string>): void {
  const made = current.getStore();
  if (made === undefined) return;
  let set = made.get(conversationId);
  if (set === undefined) {
    set = new Set();
    made.set(conversationId, set);
  }
  for (const placeholder of placeholders) set.add(placeholder);
}

/**
 * Runs `work` with every door's replacements tallied, then hands the tally to `record` (also
 * when `work` failed: what was replaced before the failure was replaced all the same). `record`
 * is bookkeeping and must not throw.
 */
export async function tallyingRedactions<T>(
  work: () => Promise<T>,
  record: (made: MadePlaceholders) => Promise<void>,
): Promise<T> {
  const made: MadePlaceholders = new Map();
  try {
    return await current.run(made, work);
  } finally {
    if (made.size > 0) await record(made);
  }
}
