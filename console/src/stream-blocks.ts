/**
 * The blocks of a streamed message, as Slack shows a stream: its markdown, its tasks as a
 * timeline (`task_card`: a status, a title, a one-line outcome), or the tasks gathered under a
 * `plan` with its title. Each card carries its status for tests and styles.
 */

import { type Child, h } from './dom.ts';

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const STATUS_MARK: Record<string, string> = {
  pending: '○',
  in_progress: '◔',
  complete: '✓',
  error: '✕',
};

const STATUS_WORDS: Record<string, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  complete: 'done',
  error: 'failed',
};

/** A stream block, or undefined for any other block. */
export function renderStreamBlock(
  value: Obj,
  markdown: (text: string) => HTMLElement,
): HTMLElement | undefined {
  switch (value.type) {
    case 'markdown': {
      const text = str(value.text);
      return text === undefined ? undefined : h('div', { class: 'block markdown' }, markdown(text));
    }
    case 'task_card':
      return h('ol', { class: 'block task-timeline', 'data-testid': 'task-timeline' }, taskCard(value));
    case 'plan': {
      const tasks = Array.isArray(value.tasks) ? value.tasks.filter(isObj) : [];
      return h(
        'div',
        { class: 'block plan', 'data-testid': 'task-plan' },
        h('div', { class: 'plan-title' }, str(value.title) ?? 'Plan'),
        h('ol', { class: 'task-timeline' }, tasks.map(taskCard)),
      );
    }
    default:
      return undefined;
  }
}

function taskCard(card: Obj): HTMLElement {
  const status = str(card.status) ?? 'pending';
  const output = richTextOf(card.output);
  return h(
    'li',
    {
      class: `task-card ${status}`,
      'data-testid': 'task-card',
      'data-status': status,
      title: STATUS_WORDS[status] ?? status,
    },
    h(
      'span',
      { class: 'task-status', 'aria-label': STATUS_WORDS[status] ?? status },
      STATUS_MARK[status] ?? '?',
    ),
    h('span', { class: 'task-title' }, str(card.title) ?? ''),
    output ? h('span', { class: 'task-output' }, output) : null,
  );
}

/** The plain text of a `rich_text` object (a task's details and output). */
function richTextOf(value: unknown): Child {
  if (!isObj(value)) return null;
  const parts: string[] = [];
  const walk = (node: unknown) => {
    if (!isObj(node)) return;
    if (typeof node.text === 'string') parts.push(node.text);
    if (Array.isArray(node.elements)) node.elements.forEach(walk);
  };
  walk(value);
  return parts.length > 0 ? parts.join('') : null;
}
