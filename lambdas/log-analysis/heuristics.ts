/**
 * The miner's switchable choices, in one place, so a benchmark can choose each of them again
 * without the log it then tests on (leave one system out) and show what they are worth on a
 * log never seen. Some were chosen by measuring them on sample logs (`LEARNED`); the others
 * are rules from the literature and standards that hold for any log (`GENERAL`), switchable
 * only so that the benchmark can also choose them on data and show what that changes. Rules that were never
 * chosen on data (numbers, hex, IP addresses, UUIDs, paths, URLs, dates: the variable shapes
 * every log parsing benchmark masks) are always on and are not here.
 */

/** The learned settings and optional rules of the miner. */
export interface Heuristics {
  /**
   * Share of a group's positions where a message must have the same word to join it (Drain's
   * similarity threshold, which its authors tune per log between 0.4 and 0.7).
   */
  similarityThreshold: number;
  /**
   * A position of plain words forks its group into one template per word when it shows at
   * most this many words (`Failed password` / `Failed none`); 0: never.
   */
  maxWordFork: number;
  /** The same for upper-case constants (enum names: `from NEW to RUNNING`); 0: never. */
  maxConstantFork: number;
  /**
   * A part left empty is another event than the part filled: a field without its value
   * (`rhost=` / `rhost=<*>`), a word without the name before it (`(uid=<*>)` / `LOGIN(uid=<*>)`).
   * A `<*>` stands for a value the message holds; an absent value is no value but a case of its
   * own, which log formats write apart from every value (RFC 5424's NILVALUE `-`, logfmt's empty
   * `key=`, JSON's `null`): the program took another path (no remote host, no login name).
   */
  emptyFieldFork: boolean;
  /**
   * Values next to each other, with only whitespace between, are one variable part of any
   * length (`at Fri Jun 17 07:07:00 2005` -> `at <*>:<*>:<*>`): templates then merge across
   * different token counts. Two variables with no constant between say nothing a template can
   * use but how many there are, and a value can hold spaces (a date, a size, free text). The
   * template corrections of Khan et al., "Guidelines for Assessing the Accuracy of Log Message
   * Template Identification Techniques" (ICSE 2022), merge variables joined with no delimiter
   * or by a dot; this extends that to whitespace.
   */
  mergeAdjacentValues: boolean;
  /**
   * A name of two or more hyphenated parts ending in a number names an instance
   * (`web-prod-12` -> `<*>`); with it off only the number is masked (`web-prod-<*>`). Numbered
   * host and instance names are a naming convention, not one log's: RFC 1123 host labels,
   * Kubernetes StatefulSet pods (`<name>-<ordinal>`), EC2 host names (`ip-10-0-0-1`).
   */
  instanceNames: boolean;
  /** A one-letter part between two values joined by `_` belongs to the id (`attempt_<*>_m_<*>` -> `attempt_<*>`). */
  letterInId: boolean;
  /**
   * A message may join a group it differs from in one word, whatever the threshold: one
   * differing word can always be a variable, and without this a message of two or three words
   * (`Started foo`) could never join a group at a threshold above 1/2 or 2/3.
   */
  oneDifferentWord: boolean;
  /**
   * A quoted string that holds whitespace is one word (`'my file.txt'`, `msg="disk full"`), so
   * messages whose quoted values have different word counts share a template; the value
   * generalizes as any word (`'<*>'`). Quoted values are among the variable shapes the log
   * formats define (RFC 5424 structured-data values, logfmt).
   */
  quotedStrings: boolean;
  /**
   * A first word that holds `.`, `/`, `\` or `@` (a file, host or address name) does not pick
   * the message's bucket: Drain buckets by first word on the premise that it is a constant,
   * and such a word is as often a value.
   */
  nameFirstWords: boolean;
  /** Dot leaders (`instruction......0`) end a word, so the value after them is a word of its own. */
  dotLeaders: boolean;
  /**
   * A size unit after a number, written apart or on it (`5.2 KB`, `126MB`, `16K`), is part of
   * the value: the unit changes with the number (the binary and decimal byte units of
   * IEC 80000-13). Units of time and frequency written on a number stay (`250ms`).
   */
  sizeUnits: boolean;
  /**
   * An absolute path whose last part holds a value keeps that part's masked form
   * (`/data/7/blk_12` -> `/<*>/blk_<*>`: the file name says what kind of file); off, and for
   * other paths, the whole path is one value. The two always-on rules it joins: a path is one
   * value (path-like strings, Khan et al., ICSE 2022) and an id keeps its constant head
   * (`blk_<*>`, Drain's preprocessing). A file a program names after an id (`part-%05d`,
   * `chunk_<id>`) carries the id's form in its name, while its directory comes from
   * configuration: the directory is the value, the name's head is format text.
   */
  pathFileName: boolean;
  /**
   * A template writes one space between its words, whatever whitespace its messages had: the
   * whitespace only separates the words. Drain splits messages on whitespace and writes a
   * template as its words joined by one space (its implementation in logparser, the benchmark
   * of Zhu et al., ICSE-SEIP 2019). Off, a template keeps its first message's spacing.
   */
  singleSpaces: boolean;
  /**
   * With `singleSpaces`, whitespace between two constant parts is kept as the messages wrote
   * it (`Initializing:  done`): it is the format string's own text, as constant as its words
   * (the literal characters of a printf format, ISO C 7.21.6.1). Whitespace that touches a value
   * is still one space, since a value's padding changes with its width (a field width such as
   * `%-15s` pads the value, not the format).
   */
  constantSpacing: boolean;
  /**
   * The name before `=` in `name=value` is a field name, never a value, even with digits in it
   * (`r24=0x1f` -> `r24=<*>`, not `<*>=<*>`): the key of a key=value pair is the constant part
   * of the token (logfmt, RFC 5424 structured-data parameters).
   */
  keyNames: boolean;
  /**
   * Letters glued to the front of a number name what it counts and stay (`U11` -> `U<*>`,
   * `node559` -> `node<*>`, `v2` -> `v<*>`), as the constant head of a word joined by `_` stays
   * (`blk_<*>`); off, the whole run is one value. Hex values (`ffff3000`, `0x1f`) stay whole.
   */
  letterHeads: boolean;
  /**
   * A decimal fraction keeps its point (`0.25` -> `<*>.<*>`): the point is a constant of the
   * format string (`%d.%d`, `%.2f`), as a `:` or `/` between values is. Off, it is one value.
   * Only two digit runs joined by one dot; longer runs (versions, IPv4 addresses) stay one value.
   */
  decimalPoint: boolean;
  /**
   * A decimal fraction keeps its point (`<*>.<*>`) where the digits after the point differ
   * among its template's messages (`0.0239`, `0.1049`: a measurement, a ratio), and is one value
   * where they never do (`3.0`, `12.0`: an index with a fixed `.0`). Numeric formats print a
   * fraction's digits from the quantity (printf's `%f` and `%g`, the shortest round-trip digits of
   * Java's `Double.toString`), so varying digits after the point mark a fraction; a part that
   * never varies marks none (Drain: a position is a parameter once two messages differ there).
   * Values merged by whitespace (`mergeAdjacentValues`) stay one value. `decimalPoint`, when
   * on, keeps every point.
   */
  varyingFractions: boolean;
  /**
   * An absolute path keeps its root: `/<*>` rather than `<*>`, as generalizing two paths word by
   * word keeps their common head up to a delimiter (`/a/b` + `/c/d` -> `/<*>`).
   */
  pathRoot: boolean;
  /**
   * A branch of a forked group keeps the constant words all its messages share (`establish new
   * session` against `renew session <*>`), but a part holding a value stays as general as the
   * group has it: with `broadcast_<*>` in one branch and `rdd_<*>` in another, both write `<*>`.
   * A fork splits a group at its constant words; the other positions are the same parameters
   * in every branch (Drain, He et al., ICWS 2017: a position is a parameter once two messages
   * of the group differ there), and a branch that has seen few messages would otherwise get a
   * narrower value only from the few values it happened to see.
   */
  branchValues: boolean;
}

/** The choices shipped: the ones the leave-one-system-out benchmark selects on all its logs. */
export const DEFAULT_HEURISTICS: Readonly<Heuristics> = Object.freeze({
  similarityThreshold: 0.6,
  maxWordFork: 3,
  maxConstantFork: 8,
  emptyFieldFork: true,
  mergeAdjacentValues: true,
  instanceNames: true,
  letterInId: true,
  dotLeaders: false,
  sizeUnits: true,
  quotedStrings: true,
  oneDifferentWord: true,
  pathFileName: true,
  nameFirstWords: false,
  keyNames: true,
  singleSpaces: true,
  constantSpacing: true,
  letterHeads: false,
  decimalPoint: false,
  pathRoot: false,
  branchValues: true,
  varyingFractions: true,
});

/** Rules from the literature, on for every log; not chosen on data. */
export const GENERAL: readonly (keyof Heuristics)[] = [
  'mergeAdjacentValues',
  'sizeUnits',
  'instanceNames',
  'quotedStrings',
  'oneDifferentWord',
  'keyNames',
  'singleSpaces',
  'constantSpacing',
  'branchValues',
  'pathFileName',
  'emptyFieldFork',
  'varyingFractions',
];
/** The choices made on sample logs, in the order the benchmark chooses them (rules, then the threshold). */
export const LEARNED: readonly (keyof Heuristics)[] = [
  'maxWordFork',
  'maxConstantFork',
  'letterInId',
  'dotLeaders',
  'nameFirstWords',
  'similarityThreshold',
];
/**
 * Ways of writing a template that sample logs' true templates disagree on (one sample's
 * `<*>.<*>` is another's `<*>`): options for a user whose logs follow one of them, off by
 * default and never chosen on data, since choosing one on some logs costs a log that writes
 * the other way (the leave-one-system-out benchmark's `--conventions` shows how much).
 */
export const CONVENTIONS: readonly (keyof Heuristics)[] = ['letterHeads', 'decimalPoint', 'pathRoot'];

/** The candidate values of each choice, as the leave-one-system-out benchmark tries them. */
export const HEURISTIC_CANDIDATES: { readonly [K in keyof Heuristics]: readonly Heuristics[K][] } = {
  similarityThreshold: [0.4, 0.5, 0.6, 0.7],
  maxWordFork: [0, 1, 2, 3, 4, 6],
  maxConstantFork: [0, 4, 8, 12],
  emptyFieldFork: [false, true],
  mergeAdjacentValues: [false, true],
  instanceNames: [false, true],
  letterInId: [false, true],
  dotLeaders: [false, true],
  sizeUnits: [false, true],
  quotedStrings: [false, true],
  oneDifferentWord: [false, true],
  pathFileName: [false, true],
  nameFirstWords: [false, true],
  keyNames: [false, true],
  singleSpaces: [false, true],
  constantSpacing: [false, true],
  letterHeads: [false, true],
  decimalPoint: [false, true],
  pathRoot: [false, true],
  branchValues: [false, true],
  varyingFractions: [false, true],
};

/** `DEFAULT_HEURISTICS` with `overrides` on top; refuses values out of range. */
export function resolveHeuristics(overrides: Partial<Heuristics> = {}): Heuristics {
  const h = { ...DEFAULT_HEURISTICS, ...overrides };
  if (!(h.similarityThreshold >= 0 && h.similarityThreshold <= 1))
    throw new RangeError(`similarityThreshold must be within 0..1, got ${h.similarityThreshold}`);
  for (const key of ['maxWordFork', 'maxConstantFork'] as const) {
    if (!Number.isInteger(h[key]) || h[key] < 0)
      throw new RangeError(`${key} must be a whole number >= 0, got ${h[key]}`);
  }
  return h;
}
