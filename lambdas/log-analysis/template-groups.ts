import { type Branch, computeFork, type Fork, MAX_TRACKED_KEYS, MAX_TRACKED_VALUES } from './forks.ts';
import { type FractionState, fractionWord } from './fractions.ts';
import type { Heuristics } from './heuristics.ts';
import { WILDCARD } from './mask.ts';

/** The miner's groups: what a group holds, how a message joins it, and how its templates read. */

/** A template as the miner holds it. */
export interface MinedTemplate {
  /** `<group>`, or `<group>.<branch>` where a group forks. */
  id: string;
  /** Variable parts written as `<*>`. */
  template: string;
  /** How many messages it holds. */
  count: number;
}

// Local copies: the hot loops should not go through module bindings.
const TRACKED_VALUES = MAX_TRACKED_VALUES;
const TRACKED_KEYS = MAX_TRACKED_KEYS;

/** A group; `FractionState` for `varyingFractions`. */
export interface Cluster extends FractionState {
  id: number;
  words: string[];
  gaps: string[];
  /** Whether a gap between its words is kept other than one space (`constantSpacing`). */
  uneven: boolean;
  /** The spacing (`Tokens.spacing`) of the last message its gaps were compared with. */
  spacing: string;
  count: number;
  /** Per position: undefined while one word only; then distinct words with counts; `null` past the limit. */
  values: (Map<string, number> | null | undefined)[];
  /** Distinct masked messages with counts, `null` past the limit (see `forks.ts`). */
  keys: Map<string, number> | null;
  /** The fork as last computed, and the count it was computed at. */
  fork?: { at: number; fork: Fork | undefined };
}

const DELIMITERS = new Set('=:,;/()[]{}"\'|@#.'.split(''));

/**
 * The word that matches both `a` and `b`: their common head and tail kept up to a delimiter,
 * the middle a wildcard (`rhost=a.b` + `rhost=c.d` -> `rhost=<*>`). Everything `a` matched, the
 * result matches, so generalizing never loses a message already held.
 */
function generalizeWord(a: string, b: string): string {
  if (a === b) return a;
  const limit = Math.min(a.length, b.length);
  let head = 0;
  while (head < limit && a.charCodeAt(head) === b.charCodeAt(head)) head++;
  while (head > 0 && !DELIMITERS.has(a.charAt(head - 1))) head--;
  let tail = 0;
  while (tail < limit - head && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail))
    tail++;
  while (tail > 0 && !DELIMITERS.has(a.charAt(a.length - tail))) tail--;
  const middle = a.slice(head, a.length - tail);
  if (middle === WILDCARD) return a;
  return `${a.slice(0, head)}${WILDCARD}${a.slice(a.length - tail)}`;
}

export function similarity(template: readonly string[], words: readonly string[]): number {
  if (words.length === 0) return 1;
  let same = 0;
  for (let i = 0; i < words.length; i++) {
    const t = template[i];
    if (t === words[i]) same++;
  }
  return same / words.length;
}

export function absorb(cluster: Cluster, words: readonly string[], key: string): void {
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const current = cluster.words[i] as string;
    if (current !== word) cluster.words[i] = generalizeWord(current, word);
    const seen = cluster.values[i];
    if (seen === null) continue;
    if (seen === undefined) {
      // Until now every message had `current` here: all of the group's count is its.
      if (current !== word) {
        cluster.values[i] = new Map([
          [current, cluster.count],
          [word, 1],
        ]);
      }
      continue;
    }
    seen.set(word, (seen.get(word) ?? 0) + 1);
    if (seen.size > TRACKED_VALUES) cluster.values[i] = null;
  }
  countKey(cluster, key);
  cluster.count++;
}

/** A repeat of a message already seen: only the counts move. */
export function recount(cluster: Cluster, words: readonly string[], key: string): void {
  for (let i = 0; i < cluster.values.length; i++) {
    const seen = cluster.values[i];
    if (seen) {
      const word = words[i] as string;
      seen.set(word, (seen.get(word) ?? 0) + 1);
    }
  }
  countKey(cluster, key);
  cluster.count++;
}

function countKey(cluster: Cluster, key: string): void {
  if (cluster.keys === null) return;
  cluster.keys.set(key, (cluster.keys.get(key) ?? 0) + 1);
  if (cluster.keys.size > TRACKED_KEYS) cluster.keys = null;
}

export function forkOf(cluster: Cluster, h: Heuristics): Fork | undefined {
  if (cluster.fork?.at !== cluster.count) cluster.fork = { at: cluster.count, fork: computeFork(cluster, h) };
  return cluster.fork.fork;
}

export function whole(cluster: Cluster, h: Heuristics): MinedTemplate {
  return { id: String(cluster.id), template: render(cluster, cluster.words, h), count: cluster.count };
}

export function branchOf(
  cluster: Cluster,
  positions: readonly number[],
  words: readonly string[],
  branch: Branch,
  h: Heuristics,
): MinedTemplate {
  const branchWords = cluster.words.slice();
  branch.common?.forEach((word, i) => {
    // `branchValues`: only a constant word narrows the branch; a value stays as the group has it.
    if (word !== undefined && !(h.branchValues && word.includes(WILDCARD))) branchWords[i] = word;
  });
  for (const p of positions) branchWords[p] = words[p] as string;
  return {
    id: `${cluster.id}.${branch.index}`,
    template: render(cluster, branchWords, h),
    count: branch.count,
  };
}

function render(cluster: Cluster, words: readonly string[], h: Heuristics): string {
  const gaps = cluster.gaps;
  let out = '';
  const between = h.singleSpaces && h.constantSpacing;
  for (let i = 0; i < words.length; i++) {
    if (i > 0) {
      const gap = gaps[i];
      // `singleSpaces`: one space, or with `constantSpacing` the gap as written between constants.
      if (gap === undefined) out += ' ';
      else if (!between) out += h.singleSpaces ? ' ' : gap;
      else out += words[i - 1]?.endsWith(WILDCARD) || words[i]?.startsWith(WILDCARD) ? ' ' : gap;
    }
    out += fractionWord(cluster, i, words[i] as string);
  }
  return out;
}
