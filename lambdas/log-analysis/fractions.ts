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

/** Notes one message's digits after its decimal points (`Tokens.fractions`, not empty). */
export function noteFractions(state: FractionState, text: string): void {
  if (state.fractionText === text) return;
  state.fractionText = text;
  const digits = new Map<number, string>();
  for (const entry of text.split(';')) {
    const at = entry.indexOf('=');
    if (at < 0) continue;
    const position = Number(entry.slice(0, at));
    const known = digits.get(position);
    digits.set(position, known === undefined ? entry.slice(at + 1) : `${known},${entry.slice(at + 1)}`);
  }
  state.fractions ??= new Map();
  for (const [position, seen] of digits) {
    const held = state.fractions.get(position);
    if (held === undefined) state.fractions.set(position, seen);
    else if (held !== null && held !== seen) state.fractions.set(position, null);
  }
}

// A value written with decimal points (`<*>.<*>`): one value.
export const POINTED = /<\*>(?:\.<\*>)+/g;

/** The word at `position` as its template writes it: one value where the digits after its points never differed. */
export function fractionWord(state: FractionState, position: number, word: string): string {
  return typeof state.fractions?.get(position) === 'string' ? word.replace(POINTED, WILDCARD) : word;
}
