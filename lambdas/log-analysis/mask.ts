/**
 * Token masking: the first and cheapest step of template mining. A word that holds a
 * variable (a number, an id, an address, a hex value, a timestamp) has the variable parts
 * replaced by `<*>` before the miner compares it with anything, so most lines that share a
 * template become byte-identical and never need a similarity search.
 */

import { DEFAULT_HEURISTICS, type Heuristics } from './heuristics.ts';
import { maskHosts } from './hosts.ts';

/** What a masked (variable) part is written as in a template. */
export const WILDCARD = '<*>';

/** The learned word rules (see `heuristics.ts`). */
export type WordRules = Pick<
  Heuristics,
  | 'instanceNames'
  | 'letterInId'
  | 'pathFileName'
  | 'keyNames'
  | 'letterHeads'
  | 'decimalPoint'
  | 'varyingFractions'
  | 'pathRoot'
  | 'sizeUnits'
>;
export const DEFAULT_WORD_RULES: WordRules = DEFAULT_HEURISTICS;

/** An extra masking rule, an API option: every match of `pattern` in a message becomes `<*>`. */
export interface MaskingRule {
  /** Shown in errors and docs; not used for matching. */
  name: string;
  /** Applied with `String.prototype.replace`; give it the `g` flag to mask every match. */
  pattern: RegExp;
}

// A UUID (RFC 4122: 8-4-4-4-12 hex digits) and a MAC address or other colon- or hyphen-joined
// hex bytes (IEEE 802: `00:1a:2b:3c:4d:5e`) are one value even where a part has no digit.
const UUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/g;
const HEX_BYTES = /(^|[^0-9A-Za-z:-])(?:[0-9A-Fa-f]{2}[:-]){3,}[0-9A-Fa-f]{2}(?![0-9A-Za-z:-])/g;
// Names of days and months are parts of a date written out in a message.
const CALENDAR_WORD = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$/;

// An absolute path of two or more parts is one value (`/var/www/html/`, `/etc/app/app.conf`); a
// single part (`/default-rack`) reads as a name.
const PATH = /^\/[^/]+\//;
const HEX_RUN = /^[0-9A-Fa-f]+$/;
// An e-mail address (RFC 5322's common form) is one value, once its domain is masked.
const EMAIL = /(^|[^\w.%+-])[\w.%+-]+@<\*>/g;
const WINDOWS_PATH = /^[A-Za-z]:\\[^\\]/;
const KEYED_PATH = /^[A-Za-z_][\w.-]*[=:](?=\/[^/]+\/)/;
const TRAILING_PUNCTUATION = /[:,;.)\]]*$/;
// A one-letter part between two values joined by `_` belongs to the id (`attempt_<*>_m_<*>`).
const LETTER_IN_ID = /<\*>_[A-Za-z]_<\*>/g;
// A name of two or more hyphenated parts ending in a number names an instance (`web-prod-12`,
// `msra-sa-41`): all of it is the value. One part before the number stays
// (`part-<*>`, `thread-<*>`).
const INSTANCE_NAME = /(^|[^A-Za-z0-9_-])[A-Za-z]+(?:-[A-Za-z]+)+-<\*>/g;

// A field name before `=` (`r24=`, `PSR0=`): with `keyNames` it stays whatever digits it holds.
const KEY_NAME = /^[A-Za-z_][\w.-]*=/;
// Stands for a decimal point while the word is masked: neither a letter, a digit nor a joiner,
// so the values on either side of it stay two.
const POINT = '\u0003';
// Letters that are not hex digits: a head of them before a number is a name, not hex.
const NOT_HEX_LETTER = /[G-Zg-z]/;

// A URL is its scheme and a value (`hdfs://<*>`, `spark://<*>`); one of only a host and a
// port (RFC 3986's authority, no path) is the host:port shape (`hdfs://<*>:<*>`).
const URL_VALUE = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s\])}'",;]+)/g;
const HOST_PORT = /^[^/@:?#]+:\d+$/;
const urlValue = (_: string, scheme: string, rest: string) =>
  `${scheme}${HOST_PORT.test(rest) ? `${WILDCARD}:${WILDCARD}` : WILDCARD}`;
// A number with its unit written on (`10000ms`, `5s`) keeps the unit; a size unit (`64MB`) only
// without `sizeUnits`.
const UNITS = new Set([
  'ns',
  'us',
  'ms',
  's',
  'sec',
  'secs',
  'min',
  'mins',
  'h',
  'hr',
  'hrs',
  'd',
  'b',
  'kb',
  'mb',
  'gb',
  'tb',
  'kib',
  'mib',
  'gib',
  'k',
  'hz',
  'khz',
  'mhz',
  'ghz',
]);

// A capitalized word glued after a number's digits is format text, not part of the value
// (`0020Job` -> `<*>Job`, as from `%sJob`): identifiers mark a new word by its capital
// (camelCase), and its lower-case letters past `f` are no hex digits.
const GLUED_WORD = /^[A-Z][a-z]*[g-z][a-z]*$/;

// Byte sizes with the binary and decimal prefixes of IEC 80000-13, and the bare prefixes
// (`16K`, `125312k`) that sizes are written with.
const SIZE_SUFFIX = /^(?:[kKMGTPE]i?[Bb]?|[Bb])$/;

const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
// `.`, `_` and `-` join the parts of one value.
const isJoiner = (c: number) => c === 46 || c === 95 || c === 45;

/**
 * Where the digits after the dot at `dot` end when that dot is a decimal point; else -1. A
 * decimal fraction is two digit runs joined by one dot, with no dot before it and no letter,
 * digit, `_` or dot after it (versions and addresses of three or more parts stay one value).
 */
function fractionEnd(text: string, dot: number): number {
  if (!isDigit(text.charCodeAt(dot - 1)) || !isDigit(text.charCodeAt(dot + 1))) return -1;
  let start = dot - 1;
  while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
  if (start > 0 && text.charCodeAt(start - 1) === 46) return -1;
  let end = dot + 2;
  while (end < text.length && isDigit(text.charCodeAt(end))) end++;
  const after = text.charCodeAt(end);
  return isAlnum(after) || after === 95 || after === 46 ? -1 : end;
}

/**
 * `text` with the point of each decimal fraction (`fractionEnd`) written as `POINT`; `text` itself when it has
 * none. Looks only around each dot: this runs for every word with digits and a dot.
 */
function markPoints(text: string): string {
  let out = '';
  let from = 0;
  for (let dot = text.indexOf('.', 1); dot > 0; dot = text.indexOf('.', dot + 1)) {
    if (fractionEnd(text, dot) < 0) continue;
    out += text.slice(from, dot) + POINT;
    from = dot + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Masks the variable parts of one whitespace-free word, in one pass over its characters
 * (this runs for every word of every line). A run of letters and digits is a value when it
 * has two or more digits or a digit among its first two characters (`2275`, `0x1f`, `J12`,
 * `R02`); a name with one digit later on stays (`ssh2`, `md5`, `Slf4jLogger`). Values joined
 * by `.`, `_` or `-` fold into one wildcard (an IPv4 address, a date, `job_1445_0020`); a minus
 * sign before a value belongs to it unless a letter or digit precedes it. Host names and
 * names of days and months are values too.
 * `blk_-6952295868487656571` -> `blk_<*>`, `10.10.34.11:45307` -> `<*>:<*>`, `core.2275` -> `core.<*>`.
 */
export function maskWord(word: string, rules: WordRules = DEFAULT_WORD_RULES): string {
  if (word.length === 3 && CALENDAR_WORD.test(word)) return WILDCARD;
  if (word.charCodeAt(0) === 47 && PATH.test(word)) return maskPath(word, rules);
  // A Windows path (`C:\Users\me\app.log`) is one value.
  if (word.charCodeAt(1) === 58 && word.charCodeAt(2) === 92 && WINDOWS_PATH.test(word)) {
    return WILDCARD + (TRAILING_PUNCTUATION.exec(word)?.[0] ?? '');
  }
  // A path as the value of a field (`file=/var/log/app.log`, `path:/srv/x/`): the key stays.
  if (word.includes('=/') || word.includes(':/')) {
    const key = KEYED_PATH.exec(word);
    if (key !== null) return key[0] + maskPath(word.slice(key[0].length), rules);
  }
  if (rules.keyNames && word.includes('=')) {
    const key = KEY_NAME.exec(word)?.[0];
    if (key !== undefined && /\d/.test(key)) {
      return key.length === word.length ? word : key + maskWord(word.slice(key.length), rules);
    }
  }
  // Java class names (`org.apache.Foo`) and file names (`workers2.properties`) are not hosts.
  let text = maskHosts(word);
  if (text.includes('@<*>')) text = text.replace(EMAIL, `$1${WILDCARD}`);
  if (text.includes('://')) text = text.replace(URL_VALUE, urlValue);
  if (text.length >= 11 && (text.includes(':') || text.includes('-'))) {
    text = text.replace(UUID, WILDCARD).replace(HEX_BYTES, `$1${WILDCARD}`);
  }
  const length = text.length;
  let i = 0;
  while (i < length && !isDigit(text.charCodeAt(i))) i++;
  if (i === length) return text;
  // A decimal point is marked only in a word with digits (the marking keeps the length).
  let point = false;
  if ((rules.decimalPoint || rules.varyingFractions) && text.includes('.') && !text.includes(POINT)) {
    const marked = markPoints(text);
    point = marked !== text;
    text = marked;
  }
  let out = '';
  let gapFrom = 0; // where the characters between the last run and the next begin
  let gapJoins = true; // the gap is only joiners
  let afterValue = false;
  i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    // A wildcard already there (from a host name or a masking rule) is a value like any other.
    const wildcard = c === 60 && text.startsWith(WILDCARD, i);
    if (!isAlnum(c) && !wildcard) {
      if (!isJoiner(c)) gapJoins = false;
      i++;
      continue;
    }
    let gap = gapFrom < i ? text.slice(gapFrom, i) : '';
    let j = wildcard ? i + WILDCARD.length : i;
    let digits = wildcard ? 2 : 0;
    let firstDigit = -1;
    let lastDigit = -1;
    while (!wildcard && j < length && isAlnum(text.charCodeAt(j))) {
      if (isDigit(text.charCodeAt(j))) {
        if (firstDigit < 0) firstDigit = j - i;
        lastDigit = j - i;
        digits++;
      }
      j++;
    }
    const value = digits >= 2 || (digits === 1 && firstDigit < 2);
    const head =
      value && rules.letterHeads && firstDigit > 0 && digits === j - i - firstDigit
        ? text.slice(i, i + firstDigit)
        : '';
    if (head !== '' && NOT_HEX_LETTER.test(head)) {
      // Letters before a number name what it counts: they stay (`U11` -> `U<*>`).
      out += gap + head + WILDCARD;
      afterValue = true;
    } else if (value) {
      // Digits then a unit (or a capitalized word): the digits are the value, the rest is not.
      const unit = firstDigit === 0 && digits === lastDigit + 1 ? text.slice(i + digits, j) : '';
      // Eight or more hex digits are a hex value even where they end in a unit's letter (`7317849d`).
      // With `sizeUnits` a size unit is part of the value (`126MB` -> `<*>`), as it is when
      // written apart (`126 MB`); a unit of time or frequency stays (`250ms` -> `<*>ms`).
      const keepUnit =
        unit !== '' &&
        ((UNITS.has(unit.toLowerCase()) &&
          !(j - i >= 8 && HEX_RUN.test(text.slice(i, j))) &&
          !(rules.sizeUnits && SIZE_SUFFIX.test(unit))) ||
          (GLUED_WORD.test(unit) && !SIZE_SUFFIX.test(unit)));
      if (!(afterValue && gap !== '' && gapJoins)) {
        const before = gap.length > 1 ? gap.charCodeAt(gap.length - 2) : out.charCodeAt(out.length - 1);
        if (gap.endsWith('-') && (Number.isNaN(before) || !isAlnum(before))) gap = gap.slice(0, -1);
        out += gap + WILDCARD;
      }
      if (keepUnit) out += unit;
      afterValue = !keepUnit;
    } else {
      out += gap + text.slice(i, j);
      afterValue = false;
    }
    gapFrom = j;
    gapJoins = true;
    i = j;
  }
  if (gapFrom < length) out += text.slice(gapFrom);
  if (point) out = out.replaceAll(POINT, '.');
  if (rules.letterInId && out.includes('_<*>')) out = out.replace(LETTER_IN_ID, WILDCARD);
  if (rules.instanceNames && out.includes('-<*>')) out = out.replace(INSTANCE_NAME, `$1${WILDCARD}`);
  return out;
}

/**
 * The digits after the decimal point of each decimal fraction in `word` (`0.25,7.5` -> `25,5`),
 * as `maskWord` keeps the point of: what `varyingFractions` compares among a template's messages.
 */
export function fractionDigits(word: string): string {
  let out = '';
  for (let dot = word.indexOf('.', 1); dot > 0; dot = word.indexOf('.', dot + 1)) {
    const end = fractionEnd(word, dot);
    if (end > 0) out += out === '' ? word.slice(dot + 1, end) : `,${word.slice(dot + 1, end)}`;
  }
  return out;
}

/** `<*>` and any trailing punctuation; with `pathFileName`, `/<*>/` and the last part's masked form when it holds a value. */
function maskPath(word: string, rules: WordRules): string {
  const tail = TRAILING_PUNCTUATION.exec(word)?.[0] ?? '';
  const body = word.slice(0, word.length - tail.length);
  const name = body.slice(body.lastIndexOf('/') + 1);
  if (rules.pathFileName && name !== '') {
    const masked = maskWord(name, rules);
    if (masked !== name && masked !== WILDCARD) return `/${WILDCARD}/${masked}${tail}`;
  }
  return (rules.pathRoot ? `/${WILDCARD}` : WILDCARD) + tail;
}

/** Applies the extra rules to a whole message (before it is split into words). */
export function applyRules(message: string, rules: readonly MaskingRule[]): string {
  let out = message;
  for (const rule of rules) out = out.replace(rule.pattern, WILDCARD);
  return out;
}
