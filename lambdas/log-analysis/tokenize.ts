import { POINTED } from './fractions.ts';
import { DEFAULT_HEURISTICS, type Heuristics } from './heuristics.ts';
import { applyRules, fractionDigits, type MaskingRule, maskWord, WILDCARD } from './mask.ts';

/** The learned rules tokenizing follows (see `heuristics.ts`). */
export type TokenRules = Pick<
  Heuristics,
  | 'instanceNames'
  | 'letterInId'
  | 'pathFileName'
  | 'mergeAdjacentValues'
  | 'dotLeaders'
  | 'sizeUnits'
  | 'quotedStrings'
  | 'keyNames'
  | 'letterHeads'
  | 'decimalPoint'
  | 'varyingFractions'
  | 'pathRoot'
>;

/** A message split into masked words and the whitespace around them. */
export interface Tokens {
  /** The masked words, in order. */
  words: string[];
  /**
   * `gaps[i]` is the whitespace before `words[i]`; `gaps[words.length]` is what trails the last.
   * Only when asked for (`withGaps`): the miner needs them only to start a group.
   */
  gaps: string[];
  /**
   * The positions of words glued to the one before (after a dot leader, `instruction......0`),
   * comma-separated; empty when none. Messages that differ in it differ in template.
   */
  glue: string;
  /** Whether whitespace between two words is anything but one space (a run, a tab). */
  uneven: boolean;
  /** The uneven gaps between words and where they are ('' when none): messages spaced alike have the same. */
  spacing: string;
  /**
   * With `varyingFractions`: per word that keeps a decimal point (`<*>.<*>`), its position and
   * the digits after its points (`fractionDigits`), as `3=25;` ('' when no word does).
   */
  fractions: string;
}

const WHITESPACE = /\s/;
// A local copy: the hot loop should not go through a module binding.
const ANY = WILDCARD;

function isSpace(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && WHITESPACE.test(text[i] as string));
}

/** Dot leaders (`instruction......0`, `operation..0`) end a word: two or more dots after a letter or digit. */
function dotLeader(text: string, i: number): number {
  if (
    text.charCodeAt(i) !== 46 ||
    text.charCodeAt(i + 1) !== 46 ||
    i === 0 ||
    !/[A-Za-z0-9]/.test(text[i - 1] as string)
  ) {
    return i;
  }
  let j = i;
  while (text.charCodeAt(j) === 46) j++;
  return j;
}
/** Longest quoted string read as one word; a longer one is split on whitespace as any text. */
const MAX_QUOTED = 256;

/**
 * Where the quoted string opened at `open` ends (just after its closing quote), if it holds
 * whitespace and closes within `MAX_QUOTED` characters at the end of a word (whitespace, the
 * end, or punctuation after it); else `open`.
 */
function closingQuote(text: string, open: number): number {
  const quote = text.charCodeAt(open);
  let spaced = false;
  const end = Math.min(text.length, open + MAX_QUOTED);
  for (let j = open + 1; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c === quote) {
      const after = text.charCodeAt(j + 1);
      const ends = Number.isNaN(after) || isSpace(text, j + 1) || ENDS_WORD.has(after);
      if (ends) return spaced ? j + 1 : open;
    } else if (!spaced && isSpace(text, j)) spaced = true;
  }
  return open;
}
// `,` `;` `:` `.` `)` `]` `}`
const ENDS_WORD = new Set([44, 59, 58, 46, 41, 93, 125]);
const NAMED = /[A-Za-z]/;
// A number with its decimal point kept (`decimalPoint`): with a size unit after it, still one value.
const FRACTION = `${WILDCARD}.${WILDCARD}`;
const SIZE_UNIT = /^(?:[KMGTPE]i?B|B)([,;:)\]]*)$/;

function push(out: Tokens, gap: string | undefined, glued: boolean, word: string, rules: TokenRules): void {
  const words = out.words;
  const masked = maskWord(word, rules);
  const last = words.length - 1;
  const previous = words[last];
  if (previous?.includes(ANY)) {
    // A list of named values of one form (`blk_<*> blk_<*> blk_<*>`) is one variable part of
    // any length: its repeats fold into the first, so lists of any length share a template.
    const list = masked === previous && NAMED.test(masked);
    // Values with only whitespace between are one value (`Fri Jun 17 07:07:00` -> `<*>:<*>:<*>`).
    const adjacent = rules.mergeAdjacentValues && previous.endsWith(ANY) && masked.startsWith(ANY) && !glued;
    // A size is a number and its unit, and the unit changes with the number (`5.2 KB`, `320 B`).
    const unit =
      rules.sizeUnits && (previous === ANY || previous === FRACTION) ? SIZE_UNIT.exec(masked) : null;
    if (list || adjacent || unit) {
      if (adjacent) {
        words[last] = previous + masked.slice(ANY.length);
        // Values merged by whitespace are one value: a decimal among them keeps no point.
        if (out.fractions !== '' || fractional(masked, rules)) {
          words[last] = (words[last] as string).replace(POINTED, ANY);
          dropFractions(out, last);
        }
      } else if (unit) words[last] = ANY + (unit[1] ?? '');
      return;
    }
  }
  if (gap !== undefined) out.gaps.push(gap);
  if (fractional(masked, rules)) noteFraction(out, words.length, word);
  words.push(masked);
}

/** Whether a masked word kept a decimal point that `varyingFractions` decides on. */
const fractional = (masked: string, rules: TokenRules) =>
  masked.length >= FRACTION.length &&
  rules.varyingFractions &&
  !rules.decimalPoint &&
  masked.includes(FRACTION);

function noteFraction(out: Tokens, position: number, word: string): void {
  out.fractions += `${position}=${fractionDigits(word)};`;
}

/** Forgets the digits noted for the last word (`position`): its entries end `out.fractions`. */
function dropFractions(out: Tokens, position: number): void {
  const entry = `${position}=`;
  const at = out.fractions.startsWith(entry) ? 0 : out.fractions.indexOf(`;${entry}`) + 1;
  if (at > 0 || out.fractions.startsWith(entry)) out.fractions = out.fractions.slice(0, at);
}

/**
 * Splits a message on whitespace and masks every word (see `maskWord`). The whitespace is
 * kept so that a template can be written back with the spacing of its messages.
 */
export function tokenize(
  message: string,
  rules: readonly MaskingRule[] = [],
  withGaps = true,
  learned: TokenRules = DEFAULT_HEURISTICS,
): Tokens {
  const text = rules.length > 0 ? applyRules(message, rules) : message;
  const out: Tokens = { words: [], gaps: [], glue: '', uneven: false, spacing: '', fractions: '' };
  const words = out.words;
  let glue = '';
  const length = text.length;
  let i = 0;
  let gapStart = 0;
  while (i < length) {
    while (i < length && isSpace(text, i)) i++;
    if (i === length) break;
    const start = i;
    while (i < length && !isSpace(text, i)) {
      const c = text.charCodeAt(i);
      if (learned.quotedStrings && (c === 34 || c === 39) && (i === start || text.charCodeAt(i - 1) === 61)) {
        // A quoted string is one word however many words it holds (`'a b.txt'`, `msg="x y"`).
        const close = closingQuote(text, i);
        if (close > i) {
          i = close;
          continue;
        }
      }
      if (learned.dotLeaders && c === 46 && text.charCodeAt(i + 1) === 46) {
        const leaderEnd = dotLeader(text, i);
        if (leaderEnd > i) {
          // The leader ends this word and belongs to it (`instruction......`); a word begins after it.
          i = leaderEnd;
          break;
        }
      }
      i++;
    }
    const count = words.length;
    if (count > 0 && (start - gapStart > 1 || text.charCodeAt(gapStart) !== 32)) {
      out.uneven = true;
      out.spacing += `${count}${text.slice(gapStart, start)}|`;
    }
    push(
      out,
      withGaps ? text.slice(gapStart, start) : undefined,
      gapStart === start,
      text.slice(start, i),
      learned,
    );
    if (gapStart === start && count > 0 && words.length > count) {
      glue += glue === '' ? String(count) : `,${count}`;
    }
    gapStart = i;
  }
  if (withGaps) out.gaps.push(text.slice(gapStart));
  out.glue = glue;
  return out;
}
