import { applyRules, type MaskingRule, maskWord, WILDCARD } from './mask.ts';

/** A message split into masked words and the whitespace around them. */
export interface Tokens {
  /** The masked words, in order. */
  words: string[];
  /** `gaps[i]` is the whitespace before `words[i]`; `gaps[words.length]` is what trails the last. */
  gaps: string[];
}

const WHITESPACE_RUN = /\s+/g;
// A size is a number and its unit, and the unit changes with the number (`5.2 KB`, `320 B`).
const SIZE_UNIT = /^(?:[KMGTPE]i?B|B)([,;:)\]]*)$/;

function push(words: string[], gaps: string[], gap: string, word: string): void {
  const masked = maskWord(word);
  const unit = words.length > 0 && words[words.length - 1] === WILDCARD ? SIZE_UNIT.exec(masked) : null;
  if (unit) words[words.length - 1] = WILDCARD + (unit[1] ?? '');
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
  let last = 0;
  let gap = '';
  WHITESPACE_RUN.lastIndex = 0;
  for (let m = WHITESPACE_RUN.exec(text); m !== null; m = WHITESPACE_RUN.exec(text)) {
    if (m.index > last) {
      push(words, gaps, gap, text.slice(last, m.index));
      gap = m[0];
    } else {
      gap += m[0];
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) {
    push(words, gaps, gap, text.slice(last));
    gap = '';
  }
  gaps.push(gap);
  return { words, gaps };
}
