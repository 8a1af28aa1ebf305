/**
 * Block Kit's `context_actions` block as Slack shows it under an answer: the feedback
 * buttons (thumbs up, thumbs down) and icon buttons. A feedback press sends the sandbox the
 * real `block_actions` payload of a `feedback_buttons` element (local/sandbox-surfaces.ts).
 */

import { h } from './dom.ts';

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export interface FeedbackContext {
  /** A feedback button was pressed. */
  onFeedback?(vote: 'up' | 'down'): Promise<void>;
  /** The vote this viewer's press recorded on the message, shown pressed however often the view renders anew. */
  pressed?: 'up' | 'down';
}

function feedbackButton(side: Obj | undefined, vote: 'up' | 'down', ctx: FeedbackContext): HTMLElement {
  const label = isObj(side?.text) ? (str(side.text.text) ?? vote) : vote;
  const node: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: ctx.pressed === vote ? 'feedback-button pressed' : 'feedback-button',
      'data-testid': `feedback-${vote}`,
      'aria-label': str(side?.accessibility_label) ?? label,
      title: label,
      onclick: (event) => {
        event.stopPropagation();
        node.disabled = true;
        void (ctx.onFeedback?.(vote) ?? Promise.resolve())
          .then(() => {
            node.classList.add('pressed');
            for (const other of node.parentElement?.querySelectorAll('.feedback-button') ?? [])
              if (other !== node) other.classList.remove('pressed');
          })
          .finally(() => {
            node.disabled = false;
          });
      },
    },
    vote === 'up' ? '👍' : '👎',
  ) as HTMLButtonElement;
  return node;
}

export function renderContextActions(block: Obj, ctx: FeedbackContext): HTMLElement {
  const elements = Array.isArray(block.elements) ? block.elements : [];
  return h(
    'div',
    { class: 'block context-actions', 'data-testid': 'context-actions' },
    elements.map((element) => {
      if (!isObj(element)) return null;
      if (element.type === 'feedback_buttons') {
        return h(
          'span',
          { class: 'feedback-buttons' },
          feedbackButton(isObj(element.positive_button) ? element.positive_button : undefined, 'up', ctx),
          feedbackButton(isObj(element.negative_button) ? element.negative_button : undefined, 'down', ctx),
        );
      }
      // Icon buttons are shown; only the feedback buttons are wired to the sandbox.
      const label = isObj(element.text) ? str(element.text.text) : undefined;
      return h(
        'span',
        { class: 'block-element', title: String(element.type) },
        label ?? String(element.type),
      );
    }),
  );
}
