import type { Block } from './types.ts';

/**
 * Text helpers for Block Kit: Slack's size limits, and escaping of text that comes from the
 * model or from people, so it is shown as written and can never ping (`<!channel>`), link
 * (`<https://...|x>`) or mention anyone by itself.
 */

/** A `section` block's `text` (Block Kit: at most 3,000 characters). */
export const SECTION_TEXT_LIMIT = 3_000;
/** The most blocks Slack takes in one message. */
export const MAX_MESSAGE_BLOCKS = 50;
/** The most text sections a long text becomes (room left for the blocks added after them). */
const MAX_TEXT_SECTIONS = 40;
/** One of a `section` block's `fields` (at most 2,000 characters each). */
export const FIELD_TEXT_LIMIT = 2_000;
/** A `header` block's plain text (at most 150 characters). */
const HEADER_TEXT_LIMIT = 150;
/** A `context` block element's text (kept well under Slack's limit). */
export const CONTEXT_TEXT_LIMIT = 2_000;
/**
 * The message's top-level `text`: the notification and the fallback where blocks cannot be
 * shown. Slack truncates at 40,000 characters; a notification needs far less.
 */
export const FALLBACK_TEXT_LIMIT = 3_000;

const ELLIPSIS = '…';

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Cuts `text` to at most `limit` UTF-16 code units (what Slack counts), ending in `…` when
 * cut. It never splits a surrogate pair (half an emoji is invalid text) nor an escape such as
 * `&amp;` (half an entity shows as garbage).
 */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = text.slice(0, Math.max(0, limit - ELLIPSIS.length));
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]*$/, '');
  return `${cut}${ELLIPSIS}`;
}

/** Escaped, then cut to `limit`: model or user text for a mrkdwn field. */
export function mrkdwnText(text: string, limit: number): string {
  return truncate(escapeMrkdwn(text), limit);
}

/** Plain text for a header (no mrkdwn; Slack renders it as written). */
export function plainText(text: string, limit = HEADER_TEXT_LIMIT): string {
  return truncate(text, limit);
}

/**
 * A mrkdwn section with a bold label, the label counted within the limit:
 * `*Summary*\n<escaped, cut text>`.
 */
export function labelledSection(label: string, text: string, limit = SECTION_TEXT_LIMIT): string {
  const heading = `*${label}*\n`;
  return `${heading}${mrkdwnText(text, limit - heading.length)}`;
}

/** The text as mrkdwn sections of at most 3,000 characters each. */
export function textSections(text: string): Block[] {
  const sections: Block[] = [];
  let rest = text.trim() === '' ? ' ' : text;
  while (rest.length > 0 && sections.length < MAX_TEXT_SECTIONS) {
    let cut = rest.length <= SECTION_TEXT_LIMIT ? rest.length : rest.lastIndexOf('\n', SECTION_TEXT_LIMIT);
    if (cut <= 0) cut = SECTION_TEXT_LIMIT;
    // Never split a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (cut < rest.length && code >= 0xd800 && code <= 0xdbff) cut -= 1;
    sections.push({ type: 'section', text: { type: 'mrkdwn', text: rest.slice(0, cut) } });
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  return sections;
}
