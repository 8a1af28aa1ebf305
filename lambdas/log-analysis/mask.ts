/**
 * Token masking: the first and cheapest step of template mining. A word that holds a
 * variable (a number, an id, an address, a hex value, a timestamp) has the variable parts
 * replaced by `<*>` before the miner compares it with anything, so most lines that share a
 * template become byte-identical and never need a similarity search.
 */

/** What a masked (variable) part is written as in a template. */
export const WILDCARD = '<*>';

/** An extra masking rule, an API option: every match of `pattern` in a message becomes `<*>`. */
export interface MaskingRule {
  /** Shown in errors and docs; not used for matching. */
  name: string;
  /** Applied with `String.prototype.replace`; give it the `g` flag to mask every match. */
  pattern: RegExp;
}

const HAS_DIGIT = /\d/;
const ALNUM_RUN = /[A-Za-z0-9]+/g;
// Variable parts joined by `.`, `_` or `-` are one value (an IPv4 address, a date, an id like
// `job_1445_0020`): one wildcard, not four.
const JOINED_WILDCARDS = /<\*>(?:[._-]+<\*>)+/g;
// A minus sign directly before a number belongs to it (`blk_-6952...`), unless it follows a
// letter or digit, where it is a joiner (`R02-M1`).
const SIGNED_WILDCARD = /(^|[^A-Za-z0-9])-<\*>/g;
// A name with one digit inside or at its end (`ssh2`, `md5`, `Slf4jLogger`, `log4j`) is a name,
// not a counter; a digit first (`2275`, `0x1f`) or two or more digits (`J12`, `R02`) is a value.
const NAME_WITH_ONE_DIGIT = /^[A-Za-z]{2,}\d[A-Za-z]*$/;

// Host names end in a top-level domain; Java class names (`org.apache.Foo`) and file names
// (`workers2.properties`) do not, so they stay.
const HOST_NAME =
  /(^|[^A-Za-z0-9.-])(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+(?:com|net|org|edu|gov|mil|info|biz|io|local|internal|arpa|cn|uk|de|jp|ru|fr|br|au|nl|it|es|kr|tw|hk|ca|us|eu|ch|se|no|pl|om|il|za|mx)(?![A-Za-z0-9.-])/g;
// Names of days and months are parts of a date written out in a message.
const CALENDAR_WORD = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$/;

function maskSegment(segment: string): string {
  if (!HAS_DIGIT.test(segment) || NAME_WITH_ONE_DIGIT.test(segment)) return segment;
  return WILDCARD;
}

/**
 * Masks the variable parts of one whitespace-free word. Letters-only runs stay; runs of
 * letters and digits that hold a digit become `<*>`; neighbouring wildcards joined by
 * `.`, `_` or `-` fold into one. `blk_-6952295868487656571` -> `blk_<*>`,
 * `10.10.34.11:45307` -> `<*>:<*>`, `core.2275` -> `core.<*>`.
 */
export function maskWord(word: string): string {
  if (CALENDAR_WORD.test(word)) return WILDCARD;
  let masked = word.includes('.') ? word.replace(HOST_NAME, `$1${WILDCARD}`) : word;
  if (!HAS_DIGIT.test(masked)) return masked;
  masked = masked.replace(ALNUM_RUN, maskSegment);
  if (masked === word) return word;
  masked = masked.replace(JOINED_WILDCARDS, WILDCARD);
  if (masked.includes('-<*>')) masked = masked.replace(SIGNED_WILDCARD, `$1${WILDCARD}`);
  return masked;
}

/** Applies the extra rules to a whole message (before it is split into words). */
export function applyRules(message: string, rules: readonly MaskingRule[]): string {
  let out = message;
  for (const rule of rules) out = out.replace(rule.pattern, WILDCARD);
  return out;
}
