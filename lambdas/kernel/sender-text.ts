/**
 * Sender text as it may enter a prompt. Prompts and the history tool carry each message as one
 * JSON line (kernel/people-text.ts), whose text is normalised here first: every way of starting
 * a new line becomes `\n` (then escaped by JSON), so a reader sees the person's line breaks as
 * the person meant them and none as the start of another entry. Besides LF and CR,
 * Unicode and common tokenizers break lines at VT, FF, NEL (U+0085), the line and paragraph
 * separators (U+2028, U+2029) and, in Python's `str.splitlines`, the C0 file, group and record
 * separators (U+001C-U+001E). Bidirectional controls can reorder what a reader sees (the
 * "Trojan Source" class, CVE-2021-42574), so they are taken out, as are the remaining C0 and
 * C1 controls, which no person types on purpose.
 */

/** Every sequence that starts a new line somewhere a prompt may be read; CRLF counts as one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this module's purpose
export const LINE_BREAK = /\r\n|[\n\v\f\r\u001c-\u001e\u0085\u2028\u2029]/g;

/**
 * Explicit bidi embeddings, overrides and isolates, the implicit marks, and the Arabic letter
 * mark: none carries content, each can make a line read differently from what it holds.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** C0 and C1 controls other than tab and the line breaks above (those are handled first). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this module's purpose
const OTHER_CONTROL = /[\u0000-\u0008\u000e-\u001b\u001f\u007f-\u0084\u0086-\u009f]/g;

/**
 * The text with every line break made `\n` and the characters above removed. Idempotent:
 * normalising twice gives the same text.
 */
export function normaliseSenderText(text: string): string {
  return text.replace(LINE_BREAK, '\n').replace(BIDI_CONTROL, '').replace(OTHER_CONTROL, '');
}
