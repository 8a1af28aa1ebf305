import { UnknownTemplateGroupError } from './errors.ts';
import { branchKey, KEY_SEPARATOR } from './forks.ts';
import { noteFractions } from './fractions.ts';
import { type Heuristics, resolveHeuristics } from './heuristics.ts';
import { type MaskingRule, WILDCARD } from './mask.ts';
import {
  absorb,
  branchOf,
  type Cluster,
  forkOf,
  type MinedTemplate,
  recount,
  similarity,
  whole,
} from './template-groups.ts';
import { tokenize } from './tokenize.ts';

/** Settings of the miner. One default serves every log; none of them is per-system tuning. */
export interface MinerOptions {
  /**
   * Share of a group's positions where a message must have the same word to join it (a
   * wildcard counts where the message has a masked value there too). Overrides
   * `heuristics.similarityThreshold`. @default 0.6 (see `heuristics.ts`)
   */
  similarityThreshold?: number;
  /** Extra masking rules, applied before the built-in masking. @default [] */
  maskingRules?: readonly MaskingRule[];
  /**
   * Most groups in one bucket (same word count and first word). Past it a message joins the
   * most similar group even below the threshold, so memory and the time to place a message
   * stay bounded however many different messages come. @default 1000
   */
  maxGroupsPerBucket?: number;
  /**
   * How many distinct masked messages the exact-match cache remembers before it starts over.
   * It saves the search for repeats; after a restart a repeat is placed by the search again
   * (usually in the same group). @default 10000
   */
  cacheSize?: number;
  /**
   * The learned settings and optional rules (`heuristics.ts`), each defaulting to the value
   * chosen on sample logs. `similarityThreshold` above takes precedence over the one here.
   */
  heuristics?: Partial<Heuristics>;
}

/** First words per word count before new ones share the wildcard bucket (Drain's `maxChild`). */
const MAX_FIRST_WORDS = 100;
/** Separates a key's words from its glue (see `Tokens.glue`). */
const GLUE = '\u0001';

// A first word holding a dot, a slash, a backslash or an at sign reads as a file, host or
// address name (`chrome.exe`, `user@host`), a value more often than a constant.
const NAME_LIKE = /[./\\@]/;

/**
 * Streaming template miner in the manner of Drain (He et al., "Drain: An Online Log Parsing
 * Approach with Fixed Depth Tree", ICWS 2017): messages are bucketed by word count and first
 * word, and join the most similar group of their bucket if it is similar enough, or start a
 * new one. Added here: masking inside words (`mask.ts`), an exact-match cache in front of the
 * search, generalization that keeps constant heads and tails of words, and forks: a group whose
 * messages differ only in a few plain words splits into one template per word (`forks.ts`).
 *
 * Memory holds groups (bounded tracking per group) and the bounded cache, never messages.
 * Since a group can still fork or generalize after a message joined it, a message's final
 * template is known only after the last `add`: ask `templateOf(group, message)` then.
 */
export class TemplateMiner {
  readonly #threshold: number;
  readonly #rules: readonly MaskingRule[];
  readonly #cacheSize: number;
  readonly #maxGroupsPerBucket: number;
  readonly #h: Heuristics;
  readonly #clusters: Cluster[] = [];
  readonly #buckets = new Map<string, Cluster[]>();
  /** Buckets per word count (and glue). */
  readonly #firstWords = new Map<string, number>();
  #cache = new Map<string, Cluster>();

  constructor(options: MinerOptions = {}) {
    this.#h = resolveHeuristics({
      ...options.heuristics,
      ...(options.similarityThreshold === undefined
        ? {}
        : { similarityThreshold: options.similarityThreshold }),
    });
    this.#threshold = this.#h.similarityThreshold;
    this.#rules = options.maskingRules ?? [];
    this.#cacheSize = options.cacheSize ?? 10_000;
    this.#maxGroupsPerBucket = options.maxGroupsPerBucket ?? 1000;
  }

  /** Mines one message; returns the id of the group it joined. */
  add(message: string): number {
    const { words, glue, uneven, spacing, fractions } = tokenize(message, this.#rules, false, this.#h);
    // Glue is part of what a message is: `op......0` and `op...... 0` are written differently.
    const key = glue === '' ? words.join(KEY_SEPARATOR) : `${words.join(KEY_SEPARATOR)}${GLUE}${glue}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      recount(cached, words, key);
      if ((uneven || cached.uneven) && spacing !== cached.spacing) this.#agreeGaps(cached, message, spacing);
      if (fractions !== '') noteFractions(cached, fractions);
      return cached.id;
    }
    const bucket = this.#bucket(words, glue);
    let best: Cluster | undefined;
    let bestScore = -1;
    for (const candidate of bucket) {
      const score = similarity(candidate.words, words);
      if (score > bestScore) {
        best = candidate;
        bestScore = score;
      }
    }
    let cluster: Cluster;
    // One differing word can always be a variable: a short message (`Started foo`) may differ
    // in one word however high the threshold.
    const threshold =
      this.#h.oneDifferentWord && words.length > 1
        ? Math.min(this.#threshold, (words.length - 1) / words.length)
        : this.#threshold;
    if (best !== undefined && (bestScore >= threshold || bucket.length >= this.#maxGroupsPerBucket)) {
      cluster = best;
      absorb(cluster, words, key);
      if ((uneven || cluster.uneven) && spacing !== cluster.spacing)
        this.#agreeGaps(cluster, message, spacing);
    } else {
      // The whitespace is read again only here, and only when templates keep it: a group
      // keeps its first message's spacing (with `singleSpaces`, only between constants).
      const keepsGaps = !this.#h.singleSpaces || this.#h.constantSpacing;
      const gaps = keepsGaps ? tokenize(message, this.#rules, true, this.#h).gaps : [];
      cluster = {
        id: this.#clusters.length,
        words,
        gaps,
        uneven,
        spacing,
        count: 1,
        values: [],
        keys: new Map([[key, 1]]),
      };
      this.#clusters.push(cluster);
      bucket.push(cluster);
    }
    if (fractions !== '') noteFractions(cluster, fractions);
    if (this.#cache.size >= this.#cacheSize) this.#cache = new Map();
    this.#cache.set(key, cluster);
    return cluster.id;
  }

  /**
   * With `constantSpacing`, a group keeps only the whitespace all its messages agree on: where
   * one writes a gap differently, the gap is whitespace, not format text, and is one space.
   * Asked only when the message or the group has uneven spacing, and the message is spaced
   * otherwise than the last one compared, so logs spaced alike pay nothing.
   */
  #agreeGaps(cluster: Cluster, message: string, spacing: string): void {
    if (!this.#h.singleSpaces || !this.#h.constantSpacing) return;
    cluster.spacing = spacing;
    const gaps = tokenize(message, this.#rules, true, this.#h).gaps;
    let uneven = false;
    for (let i = 1; i < cluster.gaps.length - 1; i++) {
      if (cluster.gaps[i] !== gaps[i]) cluster.gaps[i] = ' ';
      if (cluster.gaps[i] !== ' ') uneven = true;
    }
    cluster.uneven = uneven;
  }

  /**
   * The bucket of a message: its word count and first word. As in Drain, a word count holds at
   * most `MAX_FIRST_WORDS` first words; past that, new ones share the wildcard bucket, so a
   * variable first word without digits (a user name) cannot make buckets without end.
   */
  #bucket(words: readonly string[], glue: string): Cluster[] {
    const first = words[0];
    const shape = `${words.length}${GLUE}${glue}`;
    const variable =
      first === undefined || first.includes(WILDCARD) || (this.#h.nameFirstWords && NAME_LIKE.test(first));
    let key = `${shape} ${variable ? WILDCARD : first}`;
    let bucket = this.#buckets.get(key);
    if (bucket !== undefined) return bucket;
    const firstWords = this.#firstWords.get(shape) ?? 0;
    if (firstWords >= MAX_FIRST_WORDS) {
      key = `${shape} ${WILDCARD}`;
      bucket = this.#buckets.get(key);
      if (bucket !== undefined) return bucket;
    }
    this.#firstWords.set(shape, firstWords + 1);
    bucket = [];
    this.#buckets.set(key, bucket);
    return bucket;
  }

  /** How many groups the miner holds (templates are at least as many: groups can fork). */
  get groupCount(): number {
    return this.#clusters.length;
  }

  /**
   * The template, as the miner sees it now, of `message`, which `add` put in group `group`:
   * the group's template, or the branch of it that the message's words take where the group
   * forks. Ask after the last `add` for each message's final template.
   */
  templateOf(group: number, message: string): MinedTemplate {
    const cluster = this.#clusters[group];
    if (cluster === undefined) throw new UnknownTemplateGroupError(group, `no group with id ${group}`);
    const fork = forkOf(cluster, this.#h);
    if (fork === undefined) return whole(cluster, this.#h);
    const words = tokenize(message, this.#rules, false, this.#h).words;
    const branch = fork.branches.get(branchKey(words, fork.positions));
    if (branch === undefined)
      throw new UnknownTemplateGroupError(
        group,
        `message is not in group ${group}: ${JSON.stringify(message)}`,
      );
    return branchOf(cluster, fork.positions, words, branch, this.#h);
  }

  /** Every template as the miner sees it now, most frequent first. */
  templates(): MinedTemplate[] {
    const out: MinedTemplate[] = [];
    for (const cluster of this.#clusters) {
      const fork = forkOf(cluster, this.#h);
      if (fork === undefined) {
        out.push(whole(cluster, this.#h));
        continue;
      }
      for (const [key, branch] of fork.branches) {
        const words = cluster.words.slice();
        key.split('\u0000').forEach((word, i) => {
          words[fork.positions[i] as number] = word;
        });
        out.push(branchOf(cluster, fork.positions, words, branch, this.#h));
      }
    }
    return out.sort((a, b) => b.count - a.count || a.id.localeCompare(b.id, 'en', { numeric: true }));
  }
}
