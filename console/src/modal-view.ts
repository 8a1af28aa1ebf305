/**
 * A modal the bot opened for the reader (`views.open`), over the page as Slack shows it: its
 * title, its blocks, and for each `input` block a field (a text input, multiline or not; other
 * inputs are shown but cannot be filled here). Submit sends the real `view_submission` with the
 * fields' values by block and action id; the close button closes it without one.
 */

import { renderMessageBody } from './blocks.ts';
import { type Child, h } from './dom.ts';
import { channelName, type State, userName } from './state.ts';
import type { StoredModal } from './surfaces-api.ts';

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const textOf = (value: unknown): string | undefined => (isObj(value) ? str(value.text) : undefined);

export interface ModalActions {
  submitModal(viewId: string, values: Record<string, Record<string, string>>): Promise<void>;
  closeModal(viewId: string): Promise<void>;
}

/** The modal's overlay, or nothing when no modal is open for the reader. */
export function renderModal(state: State, actions: ModalActions): Child {
  const modal = state.modal;
  if (!modal) return null;
  const fields: { blockId: string; actionId: string; input: HTMLInputElement | HTMLTextAreaElement }[] = [];
  const ctx = {
    userName: (id: string) => userName(state, id),
    channelName: (id: string) => channelName(state, id),
  };
  const body = modal.view.blocks.map((block, index) => {
    if (!isObj(block)) return null;
    if (block.type !== 'input') return renderMessageBody({ text: '', blocks: [block] }, ctx);
    return inputBlock(block, index, fields);
  });
  const submit = textOf(modal.view.submit);
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const values: Record<string, Record<string, string>> = {};
    for (const field of fields) values[field.blockId] = { [field.actionId]: field.input.value };
    void actions.submitModal(modal.id, values);
  };
  return h(
    'div',
    { class: 'modal-backdrop', 'data-testid': 'modal' },
    h(
      'form',
      {
        class: 'modal',
        role: 'dialog',
        'aria-modal': 'true',
        'aria-label': textOf(modal.view.title) ?? 'Modal',
        'data-view': modal.id,
        onsubmit: onSubmit,
      },
      h('header', null, h('h2', { 'data-testid': 'modal-title' }, textOf(modal.view.title) ?? '')),
      h('div', { class: 'modal-body' }, body),
      h(
        'footer',
        null,
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'modal-close',
            onclick: () => void actions.closeModal(modal.id),
          },
          textOf(modal.view.close) ?? 'Cancel',
        ),
        submit === undefined
          ? null
          : h('button', { type: 'submit', class: 'primary', 'data-testid': 'modal-submit' }, submit),
      ),
    ),
  );
}

function inputBlock(
  block: Obj,
  index: number,
  fields: { blockId: string; actionId: string; input: HTMLInputElement | HTMLTextAreaElement }[],
): HTMLElement {
  const element = isObj(block.element) ? block.element : {};
  const label = textOf(block.label) ?? '';
  const blockId = str(block.block_id) ?? `block-${index}`;
  const actionId = str(element.action_id) ?? `action-${index}`;
  const optional = block.optional === true;
  let control: Child;
  if (element.type === 'plain_text_input') {
    const attrs = {
      name: `${blockId}.${actionId}`,
      'data-testid': 'modal-input',
      placeholder: textOf(element.placeholder) ?? '',
      ...(typeof element.max_length === 'number' ? { maxlength: element.max_length } : {}),
      ...(optional ? {} : { required: true }),
    };
    const input = element.multiline === true ? h('textarea', { rows: 4, ...attrs }) : h('input', attrs);
    fields.push({ blockId, actionId, input });
    control = input;
  } else {
    control = h('p', { class: 'muted' }, `(a ${str(element.type) ?? 'field'} the console cannot fill)`);
  }
  return h(
    'label',
    { class: 'modal-field' },
    h(
      'span',
      { class: 'modal-label' },
      label,
      optional ? h('span', { class: 'muted' }, ' (optional)') : null,
    ),
    control,
  );
}

/** Whether `a` and `b` are the same modal (the overlay is kept while the reader types in it). */
export function sameModal(a: StoredModal | undefined, b: StoredModal | undefined): boolean {
  return a?.id === b?.id;
}
