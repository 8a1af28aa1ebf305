/**
 * Forks: where a mined group's messages show only a few distinct plain words at a position,
 * those words are not a variable but different templates that look alike (`Failed password`
 * and `Failed none`, `Transitioned from NEW to SCHEDULED` and `from SCHEDULED to RUNNING`). The
 * miner groups them while streaming (memory stays bounded) and remembers the words seen; at
 * the end each group splits into one template per combination of its fork words.
 */

import { DEFAULT_HEURISTICS, type Heuristics } from './heuristics.ts';

/** Distinct words remembered per varying position; past this the position is plainly variable. */
export const MAX_TRACKED_VALUES = 12;
/** Distinct whole messages (masked) remembered per group, to count combinations of fork words. */
export const MAX_TRACKED_KEYS = 64;
/** The learned fork rules (see `heuristics.ts`): how many plain words or constants a fork may have, and empty fields. */
export type ForkRules = Pick<Heuristics, 'maxWordFork' | 'maxConstantFork' | 'emptyFieldFork'>;

const PLAIN_WORD = /^(?:[A-Za-z_]+=)?[([]?[A-Za-z][A-Za-z_'-]*[+-]?[)\]]?(?:[.,;:!?]|\.{2,})?$/;
const CONSTANT_WORD = /^[([]?[A-Z][A-Z0-9_]*[)\]]?[.,;:!?]?$/;

/** Joins a masked message's words into its key (a word can hold spaces: a quoted string). */
export const KEY_SEPARATOR = '\u0002';

/** What the miner tracks of one group, as forks need it. */
export interface ForkSource {
  /** Per position: the distinct words seen with their counts, `null` past the limit, undefined if one word only. */
  values: readonly (Map<string, number> | null | undefined)[];
  /** The distinct masked messages (words joined by `KEY_SEPARATOR`, then any glue after U+0001) with their counts, `null` past the limit. */
  keys: Map<string, number> | null;
}

/** How a group splits: the fork positions and, per combination of their words, a branch. */
export interface Fork {
  positions: number[];
  branches: Map<string, Branch>;
}

/** One template of a forked group. */
export interface Branch {
  index: number;
  count: number;
  /**
   * Per position, the word every message of the branch has there, where they all have the
   * same (known when the group's distinct messages are); the branch's template uses it in
   * place of the group's more general word.
   */
  common?: (string | undefined)[];
}

const EMPTY_FIELD = /^[A-Za-z_][\w.-]*=$/;
const NAME_PART = /^[A-Za-z_][A-Za-z_-]*$/;

/**
 * A part left empty is a different event from the same part filled: `rhost=` against
 * `rhost=<*>` (a field with and without its value), `(uid=<*>)` against `LOGIN(uid=<*>)` (a
 * word with and without a name before it). Two words at the position, one the other with a
 * value or a name added.
 */
function emptyOrNot(seen: Map<string, number>): boolean {
  if (seen.size !== 2) return false;
  const [a, b] = [...seen.keys()] as [string, string];
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (EMPTY_FIELD.test(short) && long.startsWith(short)) return true;
  if (!short.includes('<*>') || !/[^A-Za-z]/.test(short.charAt(0))) return false;
  return long.endsWith(short) && NAME_PART.test(long.slice(0, long.length - short.length));
}

function forks(seen: Map<string, number>, rules: ForkRules): boolean {
  if (rules.emptyFieldFork && emptyOrNot(seen)) return true;
  let plain = true;
  let constant = true;
  for (const word of seen.keys()) {
    if (plain && !PLAIN_WORD.test(word)) plain = false;
    if (constant && !CONSTANT_WORD.test(word)) constant = false;
    if (!plain && !constant) return false;
  }
  return (
    (constant && seen.size <= Math.min(rules.maxConstantFork, MAX_TRACKED_VALUES)) ||
    (plain && seen.size <= rules.maxWordFork)
  );
}

/** The branch key of a message: its words at the fork positions. */
export function branchKey(words: readonly string[], positions: readonly number[]): string {
  return positions.map((p) => words[p] ?? '').join('\u0000');
}

/**
 * The fork of a group, or undefined when it stays one template. With the group's distinct
 * messages known, every fork position takes part; past that limit, only the position with the
 * fewest words (counts per word are exact; counts per combination are not known).
 */
export function computeFork(source: ForkSource, rules: ForkRules = DEFAULT_HEURISTICS): Fork | undefined {
  const positions: number[] = [];
  source.values.forEach((seen, i) => {
    if (seen && forks(seen, rules)) positions.push(i);
  });
  if (positions.length === 0) return undefined;
  const branches = new Map<string, Branch>();
  if (source.keys !== null) {
    for (const [key, count] of source.keys) {
      const words = (key.split('\u0001')[0] as string).split(KEY_SEPARATOR);
      const branch = branchKey(words, positions);
      const known = branches.get(branch);
      if (known === undefined) {
        branches.set(branch, { index: branches.size, count, common: words });
        continue;
      }
      known.count += count;
      const common = known.common as (string | undefined)[];
      for (let i = 0; i < common.length; i++) if (common[i] !== words[i]) common[i] = undefined;
    }
    return { positions, branches };
  }
  let narrowest = positions[0] as number;
  for (const p of positions) {
    if ((source.values[p]?.size ?? 0) < (source.values[narrowest]?.size ?? 0)) narrowest = p;
  }
  for (const [word, count] of source.values[narrowest] as Map<string, number>) {
    branches.set(word, { index: branches.size, count });
  }
  return { positions: [narrowest], branches };
}
