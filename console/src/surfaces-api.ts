import { request } from './api.ts';

/**
 * The sandbox's app-surface doors the console uses (local/sandbox-surfaces.ts): feedback
 * presses, a conversation's stored feedback, and the App Home of a chosen user.
 */

export interface StoredFeedback {
  answerKind: string;
  messageTs: string;
  vote: 'up' | 'down';
  reason?: string;
  by: string;
  at: string;
  answerText: string;
}

export interface HomeTab {
  id: string;
  view: { type: 'home'; blocks: unknown[] };
}

const call = request;

const q = encodeURIComponent;

export const surfacesApi = {
  feedback: (input: { channel: string; user: string; message_ts: string; vote: 'up' | 'down' }) =>
    call<{ ok: true }>('/sandbox/slack/feedback', input),
  conversationFeedback: (id: string) =>
    call<{ feedback: StoredFeedback[] }>(`/sandbox/conversations/${q(id)}/feedback`),
  openHome: (user: string) => call<{ ok: true }>('/sandbox/slack/home/open', { user }),
  home: (user: string) => call<HomeTab>(`/sandbox/slack/home?user=${q(user)}`),
  homeAction: (input: { user: string; block_id: string; action_id: string; value?: string }) =>
    call<{ ok: true }>('/sandbox/slack/home/action', input),
};
