/**
 * Block Kit, rendered as Slack shows it: header, section (text, fields, a button accessory),
 * context, divider, actions (buttons; other elements shown disabled), image (its alt text),
 * a stream's markdown, task cards and plan (stream-blocks.ts), and mrkdwn everywhere. Blocks the console does not know are skipped; a message with none it
 * can show falls back to its `text`.
 */

import type { FileShare } from './api.ts';
import { type Child, h } from './dom.ts';
import { type FeedbackContext, renderContextActions } from './feedback-buttons.ts';
import { renderFileShare } from './file-share.ts';
import { type Inline, parseMrkdwn, parsePlain } from './mrkdwn.ts';
import { formatSlackDate } from './slack-date.ts';
import { renderStreamBlock } from './stream-blocks.ts';

export interface RenderContext extends FeedbackContext {
  userName(id: string): string;
  channelName(id: string): string;
  /** A button was pressed. */
  onAction?(action: { action_id: string; value?: string; block_id?: string }): void;
}

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function inline(nodes: Inline[], ctx: RenderContext): Child[] {
  return nodes.map((node) => inlineNode(node, ctx));
}

function inlineNode(node: Inline, ctx: RenderContext): Child {
  switch (node.type) {
    case 'text':
      return node.text;
    case 'bold':
      return h('strong', null, inline(node.children, ctx));
    case 'italic':
      return h('em', null, inline(node.children, ctx));
    case 'strike':
      return h('s', null, inline(node.children, ctx));
    case 'code':
      return h('code', null, node.text);
    case 'link':
      return h('a', { href: node.url, target: '_blank', rel: 'noopener noreferrer' }, node.label);
    case 'user':
      return h('span', { class: 'mention' }, `@${node.label ?? ctx.userName(node.id)}`);
    case 'channel':
      return h('span', { class: 'mention' }, `#${node.label ?? ctx.channelName(node.id)}`);
    case 'group':
      return h('span', { class: 'mention group' }, node.label ?? `@${node.id}`);
    case 'special':
      return h('span', { class: 'mention group' }, `@${node.name}`);
    case 'date': {
      const shown = formatSlackDate(node.seconds, node.format);
      const time = h(
        'time',
        {
          datetime: new Date(node.seconds * 1000).toISOString(),
          title: node.fallback ?? '',
          'data-testid': 'date',
        },
        shown,
      );
      return node.link
        ? h('a', { href: node.link, target: '_blank', rel: 'noopener noreferrer' }, time)
        : time;
    }
    case 'emoji':
      return node.char === undefined
        ? `:${node.name}:`
        : h('span', { class: 'emoji', title: `:${node.name}:` }, node.char);
  }
}

/** mrkdwn text as a `div.mrkdwn`. */
export function renderMrkdwn(text: string, ctx: RenderContext): HTMLElement {
  const out = h('div', { class: 'mrkdwn' });
  for (const segment of parseMrkdwn(text)) {
    if (segment.type === 'pre') {
      out.appendChild(h('pre', null, segment.text));
      continue;
    }
    let paragraph: HTMLElement | undefined;
    for (const line of segment.lines) {
      if (line.type === 'quote') {
        paragraph = undefined;
        out.appendChild(h('blockquote', null, inline(line.children, ctx)));
        continue;
      }
      if (!paragraph) {
        paragraph = h('p');
        out.appendChild(paragraph);
      } else {
        paragraph.appendChild(h('br'));
      }
      for (const child of inline(line.children, ctx)) {
        paragraph.append(child instanceof Node ? child : String(child ?? ''));
      }
    }
  }
  return out;
}

/** A text object (`{type: 'mrkdwn' | 'plain_text', text}`). */
function textObject(value: unknown, ctx: RenderContext): HTMLElement | undefined {
  if (!isObj(value)) return undefined;
  const text = str(value.text);
  if (text === undefined) return undefined;
  if (value.type === 'mrkdwn') return renderMrkdwn(text, ctx);
  // plain_text is shown as written; only emoji shortcodes become emoji (unless `emoji: false`).
  if (value.emoji === false) return h('div', { class: 'plain' }, text);
  return h('div', { class: 'plain' }, inline(parsePlain(text), ctx));
}

function button(element: Obj, blockId: string | undefined, ctx: RenderContext): HTMLElement {
  const actionId = str(element.action_id) ?? '';
  const value = str(element.value);
  const style = str(element.style);
  const label = isObj(element.text) ? (str(element.text.text) ?? actionId) : actionId;
  const url = str(element.url);
  return h(
    'button',
    {
      type: 'button',
      class: `block-button${style ? ` ${style}` : ''}`,
      'data-testid': 'block-button',
      'data-action-id': actionId,
      title: url ?? actionId,
      onclick: (event) => {
        event.stopPropagation();
        ctx.onAction?.({
          action_id: actionId,
          ...(value === undefined ? {} : { value }),
          ...(blockId === undefined ? {} : { block_id: blockId }),
        });
      },
    },
    label,
  );
}

function element(value: unknown, blockId: string | undefined, ctx: RenderContext): Child {
  if (!isObj(value)) return null;
  if (value.type === 'button') return button(value, blockId, ctx);
  const placeholder = isObj(value.placeholder) ? str(value.placeholder.text) : undefined;
  // Selects, date pickers... are shown, but only buttons are wired to the sandbox.
  return h('span', { class: 'block-element', title: String(value.type) }, placeholder ?? String(value.type));
}

function block(value: unknown, ctx: RenderContext): HTMLElement | undefined {
  if (!isObj(value)) return undefined;
  const blockId = str(value.block_id);
  switch (value.type) {
    case 'header': {
      const text = isObj(value.text) ? str(value.text.text) : undefined;
      if (text === undefined) return undefined;
      const shown = textObject(value.text, ctx);
      return h('div', { class: 'block header' }, shown ?? text);
    }
    case 'section': {
      const text = textObject(value.text, ctx);
      const fields = Array.isArray(value.fields)
        ? value.fields.map((field) => textObject(field, ctx)).filter((f) => f !== undefined)
        : [];
      const accessory = isObj(value.accessory) ? element(value.accessory, blockId, ctx) : null;
      if (!text && fields.length === 0) return undefined;
      return h(
        'div',
        { class: 'block section' },
        h(
          'div',
          { class: 'section-main' },
          text,
          fields.length > 0 ? h('div', { class: 'fields' }, fields) : null,
        ),
        accessory ? h('div', { class: 'accessory' }, accessory) : null,
      );
    }
    case 'context': {
      const elements = Array.isArray(value.elements) ? value.elements : [];
      const shown = elements.map((item) =>
        isObj(item) && item.type === 'image'
          ? h('span', { class: 'image-alt' }, `[${str(item.alt_text) ?? 'image'}]`)
          : textObject(item, ctx),
      );
      return h('div', { class: 'block context' }, shown);
    }
    case 'divider':
      return h('hr', { class: 'block divider' });
    case 'actions': {
      const elements = Array.isArray(value.elements) ? value.elements : [];
      return h(
        'div',
        { class: 'block actions' },
        elements.map((item) => element(item, blockId, ctx)),
      );
    }
    case 'image':
      return h('div', { class: 'block image-alt' }, `[image: ${str(value.alt_text) ?? ''}]`);
    case 'markdown':
    case 'task_card':
    case 'plan':
      return renderStreamBlock(value, (text) => renderMrkdwn(text, ctx));
    case 'context_actions':
      return renderContextActions(value, ctx);
    default:
      return undefined;
  }
}

/**
 * The message body: its blocks when it has some the console can show, else its text; then
 * the files shared with it. A file share without text shows only its files.
 */
export function renderMessageBody(
  message: { text: string; blocks?: unknown[]; files?: FileShare[] },
  ctx: RenderContext,
): HTMLElement {
  const rendered = (message.blocks ?? []).map((b) => block(b, ctx)).filter((b) => b !== undefined);
  const files = message.files ?? [];
  const body =
    rendered.length > 0
      ? h('div', { class: 'blocks' }, rendered)
      : message.text.trim() === '' && files.length > 0
        ? null
        : renderMrkdwn(message.text, ctx);
  if (files.length === 0 && body) return body;
  return h('div', { class: 'with-files' }, body, files.map(renderFileShare));
}
