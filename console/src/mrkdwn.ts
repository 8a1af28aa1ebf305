/**
 * Slack's mrkdwn, parsed into a small tree the console renders (no HTML strings, so nothing a
 * message says can become markup). Covers what the bot and people write: *bold*, _italic_,
 * ~strike~, `code`, ```pre```, > quotes, <url|label> links, <@U..> users, <#C..> channels,
 * <!subteam^S..> groups, <!here>-style specials, <!date^..> dates (slack-date.ts), :emoji:
 * shortcodes and the &amp; &lt; &gt; escapes.
 */

import { emojiFor } from './emoji.ts';

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'bold' | 'italic' | 'strike'; children: Inline[] }
  | { type: 'code'; text: string }
  | { type: 'link'; url: string; label: string }
  | { type: 'user'; id: string; label?: string }
  | { type: 'channel'; id: string; label?: string }
  | { type: 'group'; id: string; label?: string }
  | { type: 'special'; name: string }
  | { type: 'date'; seconds: number; format: string; fallback?: string; link?: string }
  | { type: 'emoji'; name: string; char?: string };

export type Line = { type: 'line'; children: Inline[] } | { type: 'quote'; children: Inline[] };
export type Segment = { type: 'lines'; lines: Line[] } | { type: 'pre'; text: string };

export function unescapeMrkdwn(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

// One alternative per construct; a word character next to a marker means it is not one (snake_case).
const INLINE = new RegExp(
  [
    '`([^`\\n]+)`',
    '<([^<>\\n]+)>',
    '(?<![\\p{L}\\p{N}_*])\\*(?=\\S)([^*\\n]*?\\S)\\*(?![\\p{L}\\p{N}_*])',
    '(?<![\\p{L}\\p{N}_])_(?=\\S)([^_\\n]*?\\S)_(?![\\p{L}\\p{N}_])',
    '(?<![\\p{L}\\p{N}_~])~(?=\\S)([^~\\n]*?\\S)~(?![\\p{L}\\p{N}_~])',
    ':([a-z0-9_+-]+):',
  ].join('|'),
  'gu',
);

function pushText(out: Inline[], text: string): void {
  if (text === '') return;
  const last = out[out.length - 1];
  if (last?.type === 'text') last.text += text;
  else out.push({ type: 'text', text });
}

function angle(content: string): Inline {
  const bar = content.indexOf('|');
  const target = bar === -1 ? content : content.slice(0, bar);
  const label = bar === -1 ? undefined : unescapeMrkdwn(content.slice(bar + 1));
  const withLabel = <T extends object>(value: T) => (label === undefined ? value : { ...value, label });
  if (target.startsWith('@')) return withLabel({ type: 'user' as const, id: target.slice(1) });
  if (target.startsWith('#')) return withLabel({ type: 'channel' as const, id: target.slice(1) });
  if (target.startsWith('!subteam^')) return withLabel({ type: 'group' as const, id: target.slice(9) });
  // <!date^1700000000^{date_short_pretty} {time}^https://link|fallback>: shown in the reader's zone.
  const date = /^!date\^(\d+)\^([^^]*)(?:\^(.+))?$/.exec(target);
  if (date) {
    const link = date[3] === undefined ? undefined : unescapeMrkdwn(date[3]);
    return {
      type: 'date',
      seconds: Number(date[1]),
      format: unescapeMrkdwn(date[2] ?? ''),
      ...(label === undefined ? {} : { fallback: label }),
      ...(link && /^https?:/i.test(link) ? { link } : {}),
    };
  }
  if (target.startsWith('!')) return { type: 'special', name: label ?? target.slice(1) };
  const url = unescapeMrkdwn(target);
  if (/^(https?:|mailto:)/i.test(url)) return { type: 'link', url, label: label ?? url };
  // Anything else is shown as written, never as a link.
  return { type: 'text', text: label ?? url };
}

function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0;
    pushText(out, unescapeMrkdwn(text.slice(last, index)));
    last = index + match[0].length;
    const [, code, link, bold, italic, strike, emoji] = match;
    if (code !== undefined) out.push({ type: 'code', text: unescapeMrkdwn(code) });
    else if (link !== undefined) {
      const node = angle(link);
      if (node.type === 'text') pushText(out, node.text);
      else out.push(node);
    } else if (bold !== undefined) out.push({ type: 'bold', children: parseInline(bold) });
    else if (italic !== undefined) out.push({ type: 'italic', children: parseInline(italic) });
    else if (strike !== undefined) out.push({ type: 'strike', children: parseInline(strike) });
    else if (emoji !== undefined) {
      const char = emojiFor(emoji);
      out.push(char === undefined ? { type: 'emoji', name: emoji } : { type: 'emoji', name: emoji, char });
    }
  }
  pushText(out, unescapeMrkdwn(text.slice(last)));
  return out;
}

export function parseMrkdwn(text: string): Segment[] {
  const segments: Segment[] = [];
  const parts = text.split('```');
  parts.forEach((part, i) => {
    // Odd parts are inside ``` fences.
    if (i % 2 === 1 && i < parts.length - 1) {
      segments.push({ type: 'pre', text: unescapeMrkdwn(part.replace(/^\n/, '')) });
      return;
    }
    let source = i % 2 === 1 ? `\`\`\`${part}` : part;
    // The line breaks around a fence belong to the fence.
    if (i > 0 && i % 2 === 0) source = source.replace(/^\n/, '');
    if (i < parts.length - 2) source = source.replace(/\n$/, '');
    if (source === '') return;
    const lines: Line[] = source.split('\n').map((line) => {
      const quote = /^(&gt;|>)\s?(.*)$/.exec(line);
      return quote
        ? { type: 'quote', children: parseInline(quote[2] ?? '') }
        : { type: 'line', children: parseInline(line) };
    });
    segments.push({ type: 'lines', lines });
  });
  return segments;
}

/** plain_text: as written, with emoji shortcodes as emoji. */
export function parsePlain(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(/:([a-z0-9_+-]+):/g)) {
    const name = match[1] ?? '';
    const char = emojiFor(name);
    if (char === undefined) continue;
    pushText(out, text.slice(last, match.index));
    out.push({ type: 'emoji', name, char });
    last = (match.index ?? 0) + match[0].length;
  }
  pushText(out, text.slice(last));
  return out;
}
