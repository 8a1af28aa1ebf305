/**
 * `varyingFractions` (see `heuristics.ts`): a decimal keeps its point in a template where the
 * digits after the point differ among the template's messages, and is one value where they
 * never do. Tokenizing writes, per word that kept a point, its position and those digits
 * (`3=25;`); a group keeps them per position while its messages agree, and its template writes
 * a position they always agreed on as one value.
 */
import { WILDCARD } from './mask.ts';

/** What a group holds of the digits after its decimal points. */
export interface FractionState {
  /** Per position that kept a decimal point: the digits after it while all messages had the same, `null` once two differed. */
  fractions?: Map<number, string | null>;
  /** The last message's digits noted (`Tokens.fractions`): one with the same changes nothing. */
  fractionText?: string;
}

/** Notes one message's digits after its decimal points (`Tokens.fractions`, not empty; a position once). */
export function noteFractions(state: FractionState, text: string): void {
  if (state.fractionText === text) return;
  state.fractionText = text;
  state.fractions ??= new Map();
  const held = state.fractions;
  for (let from = 0, end = text.indexOf(';'); end > 0; from = end + 1, end = text.indexOf(';', from)) {
    const at = text.indexOf('=', from);
    const position = Number(text.slice(from, at));
    const digits = text.slice(at + 1, end);
    const seen = held.get(position);
    if (seen === undefined) held.set(position, digits);
    else if (seen !== null && seen !== digits) held.set(position, null);
  }
}

// A value written with decimal points (`<*>.<*>`): one value.
export const POINTED = /<\*>(?:\.<\*>)+/g;

/** The word at `position` as its template writes it: one value where the digits after its points never differed. */
export function fractionWord(state: FractionState, position: number, word: string): string {
  return typeof state.fractions?.get(position) === 'string' ? word.replace(POINTED, WILDCARD) : word;
}
