import { SlackApiError } from './fake-slack.ts';

/**
 * Block Kit's limits as `@slack/types` documents them (block-kit/blocks.d.ts and
 * block-elements.d.ts), held the way Slack holds them: a message breaking one is refused with
 * `invalid_blocks` and a detail naming where, and nothing is posted.
 */
export const BLOCK_LIMITS = {
  blocksPerMessage: 50,
  blockId: 255,
  sectionText: 3_000,
  sectionFields: 10,
  sectionFieldText: 2_000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  contextActionsElements: 5,
  markdownText: 12_000,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2_000,
  buttonUrl: 3_000,
  accessibilityLabel: 75,
} as const;

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const CONTEXT_ACTIONS = new Set(['feedback_buttons', 'icon_button']);

type Json = Record<string, unknown>;

/** Refuses `blocks` where Slack would; returns them unchanged otherwise. */
export function checkBlocks(blocks: readonly unknown[], where = 'blocks'): unknown[] {
  if (blocks.length > BLOCK_LIMITS.blocksPerMessage)
    refuse(`${where}: no more than ${BLOCK_LIMITS.blocksPerMessage} items allowed`);
  for (const [index, block] of blocks.entries()) checkBlock(block, `${where}[${index}]`);
  return [...blocks];
}

function checkBlock(value: unknown, at: string): void {
  const block = object(value, at);
  const type = block.type;
  if (typeof type !== 'string') refuse(`${at}: every block needs a type`);
  maxLength(block.block_id, BLOCK_LIMITS.blockId, `${at}.block_id`);
  switch (type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined)
        refuse(`${at}: a section needs text or fields`);
      if (block.text !== undefined)
        maxLength(textOf(block.text, `${at}.text`), BLOCK_LIMITS.sectionText, `${at}.text`);
      if (block.fields !== undefined) {
        const fields = array(block.fields, `${at}.fields`, BLOCK_LIMITS.sectionFields);
        for (const [i, f] of fields.entries())
          maxLength(textOf(f, `${at}.fields[${i}]`), BLOCK_LIMITS.sectionFieldText, `${at}.fields[${i}]`);
      }
      if (block.accessory !== undefined) checkElement(block.accessory, `${at}.accessory`);
      return;
    }
    case 'header':
      maxLength(textOf(block.text, `${at}.text`), BLOCK_LIMITS.headerText, `${at}.text`);
      return;
    case 'context':
      array(block.elements, `${at}.elements`, BLOCK_LIMITS.contextElements, 1);
      return;
    case 'actions': {
      const elements = array(block.elements, `${at}.elements`, BLOCK_LIMITS.actionsElements, 1);
      for (const [i, e] of elements.entries()) checkElement(e, `${at}.elements[${i}]`);
      return;
    }
    case 'context_actions': {
      const elements = array(block.elements, `${at}.elements`, BLOCK_LIMITS.contextActionsElements, 1);
      for (const [i, e] of elements.entries()) {
        const element = object(e, `${at}.elements[${i}]`);
        if (!CONTEXT_ACTIONS.has(String(element.type)))
          refuse(`${at}.elements[${i}]: a context_actions block holds feedback_buttons and icon_button only`);
        maxLength(element.action_id, BLOCK_LIMITS.actionId, `${at}.elements[${i}].action_id`);
      }
      return;
    }
    case 'markdown':
      if (typeof block.text !== 'string') refuse(`${at}.text: must be a string`);
      maxLength(block.text, BLOCK_LIMITS.markdownText, `${at}.text`);
      return;
    case 'task_card':
      checkTaskCard(block, at);
      return;
    case 'plan': {
      if (typeof block.title !== 'string' || block.title === '') refuse(`${at}.title: a plan needs a title`);
      const tasks = block.tasks === undefined ? [] : array(block.tasks, `${at}.tasks`);
      for (const [i, t] of tasks.entries())
        checkTaskCard(object(t, `${at}.tasks[${i}]`), `${at}.tasks[${i}]`);
      return;
    }
    default:
      return;
  }
}

/** A task card (also a stream's `task_update`): an id, a title, a known status. */
export function checkTaskCard(card: Json, at: string, idField = 'task_id'): void {
  if (typeof card[idField] !== 'string' || card[idField] === '') refuse(`${at}.${idField}: required`);
  if (typeof card.title !== 'string' || card.title === '') refuse(`${at}.title: required`);
  if (!TASK_STATUSES.has(String(card.status)))
    refuse(`${at}.status: must be one of pending, in_progress, complete, error`);
}

function checkElement(value: unknown, at: string): void {
  const element = object(value, at);
  maxLength(element.action_id, BLOCK_LIMITS.actionId, `${at}.action_id`);
  if (element.type !== 'button') return;
  maxLength(textOf(element.text, `${at}.text`), BLOCK_LIMITS.buttonText, `${at}.text`);
  maxLength(element.value, BLOCK_LIMITS.buttonValue, `${at}.value`);
  maxLength(element.url, BLOCK_LIMITS.buttonUrl, `${at}.url`);
  maxLength(element.accessibility_label, BLOCK_LIMITS.accessibilityLabel, `${at}.accessibility_label`);
  if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger')
    refuse(`${at}.style: must be primary or danger`);
}

function textOf(value: unknown, at: string): string {
  const text = object(value, at);
  if (text.type !== 'plain_text' && text.type !== 'mrkdwn')
    refuse(`${at}.type: must be plain_text or mrkdwn`);
  if (typeof text.text !== 'string' || text.text === '') refuse(`${at}.text: must be a non-empty string`);
  return text.text;
}

function object(value: unknown, at: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(`${at}: must be an object`);
  return value as Json;
}

function array(value: unknown, at: string, max = Number.POSITIVE_INFINITY, min = 0): unknown[] {
  if (!Array.isArray(value)) refuse(`${at}: must be an array`);
  const items = value as unknown[];
  if (items.length < min) refuse(`${at}: at least ${min} item${min === 1 ? '' : 's'} required`);
  if (items.length > max) refuse(`${at}: no more than ${max} items allowed`);
  return items;
}

function maxLength(value: unknown, max: number, at: string): void {
  if (typeof value === 'string' && value.length > max)
    refuse(`${at}: must be less than ${max + 1} characters`);
}

function refuse(detail: string): never {
  throw new SlackApiError('invalid_blocks', detail);
}
