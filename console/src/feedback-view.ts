/**
 * The feedback people gave on a conversation's answers, in its detail: who, on which answer,
 * up or down, and the reason of a thumbs down. Read from the sandbox on each render (at most
 * every two seconds), and shown from the last read meanwhile.
 */

import { h } from './dom.ts';
import { type StoredFeedback, surfacesApi } from './surfaces-api.ts';

const cache = new Map<string, { at: number; feedback: StoredFeedback[] }>();
const REFRESH_MS = 2_000;

function fill(
  section: HTMLElement,
  feedback: readonly StoredFeedback[],
  userName: (id: string) => string,
): void {
  const items = feedback.map((f) =>
    h(
      'li',
      { 'data-testid': 'feedback-item', 'data-vote': f.vote },
      h('span', { class: `vote ${f.vote}` }, f.vote === 'up' ? '👍' : '👎'),
      ` ${userName(f.by)} on the ${f.answerKind.replaceAll('_', ' ')} `,
      h('span', { class: 'muted', title: f.answerText }, `(${f.messageTs})`),
      f.reason ? h('blockquote', null, f.reason) : null,
    ),
  );
  section.replaceChildren(
    h(
      'h3',
      null,
      `Feedback (${feedback.filter((f) => f.vote === 'up').length} 👍, ${feedback.filter((f) => f.vote === 'down').length} 👎)`,
    ),
    feedback.length === 0
      ? h('p', { class: 'empty' }, 'No feedback on its answers yet.')
      : h('ul', null, items),
  );
}

export function feedbackSection(conversationId: string, userName: (id: string) => string): HTMLElement {
  const section = h('section', { class: 'feedback', 'data-testid': 'conversation-feedback' });
  const cached = cache.get(conversationId);
  fill(section, cached?.feedback ?? [], userName);
  if (cached === undefined || Date.now() - cached.at > REFRESH_MS) {
    void surfacesApi
      .conversationFeedback(conversationId)
      .then(({ feedback }) => {
        cache.set(conversationId, { at: Date.now(), feedback });
        fill(section, feedback, userName);
      })
      .catch(() => undefined);
  }
  return section;
}
