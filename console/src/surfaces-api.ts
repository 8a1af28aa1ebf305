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

async function call<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: the text is the message
    }
    throw new Error(`${response.status}: ${message}`);
  }
  return JSON.parse(text) as T;
}

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
