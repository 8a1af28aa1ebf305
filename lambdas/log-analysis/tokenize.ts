import { applyRules, type MaskingRule, maskWord, WILDCARD } from './mask.ts';

/** A message split into masked words and the whitespace around them. */
export interface Tokens {
  /** The masked words, in order. */
  words: string[];
  /** `gaps[i]` is the whitespace before `words[i]`; `gaps[words.length]` is what trails the last. */
  gaps: string[];
}

const WHITESPACE = /\s/;
// A local copy: the hot loop should not go through a module binding.
const ANY = WILDCARD;

function isSpace(c: number, ch: string): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && WHITESPACE.test(ch));
}
// A size is a number and its unit, and the unit changes with the number (`5.2 KB`, `320 B`).
const SIZE_UNIT = /^(?:[KMGTPE]i?B|B)([,;:)\]]*)$/;

function push(words: string[], gaps: string[], gap: string, word: string): void {
  const masked = maskWord(word);
  const unit = words.length > 0 && words[words.length - 1] === ANY ? SIZE_UNIT.exec(masked) : null;
  if (unit) words[words.length - 1] = ANY + (unit[1] ?? '');
  else {
    gaps.push(gap);
    words.push(masked);
  }
}

/**
 * Splits a message on whitespace and masks every word (see `maskWord`). The whitespace is
 * kept so that a template can be written back with the spacing of its messages.
 */
export function tokenize(message: string, rules: readonly MaskingRule[] = []): Tokens {
  const text = rules.length > 0 ? applyRules(message, rules) : message;
  const words: string[] = [];
  const gaps: string[] = [];
  const length = text.length;
  let i = 0;
  let gapStart = 0;
  while (i < length) {
    while (i < length && isSpace(text.charCodeAt(i), text[i] as string)) i++;
    if (i === length) break;
    const start = i;
    while (i < length && !isSpace(text.charCodeAt(i), text[i] as string)) i++;
    push(words, gaps, text.slice(gapStart, start), text.slice(start, i));
    gapStart = i;
  }
  gaps.push(text.slice(gapStart));
  return { words, gaps };
}
