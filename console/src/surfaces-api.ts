import { type Message, request } from './api.ts';

/**
 * The sandbox's app-surface doors the console uses (local/sandbox-surfaces.ts,
 * local/sandbox-console-doors.ts): feedback presses, a conversation's stored feedback, the App
 * Home of a chosen user, ephemeral messages and their buttons, slash commands, modals, and an
 * assistant thread's status.
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

/** A modal the bot opened (`views.open`), as the sandbox keeps it. */
export interface StoredModal {
  id: string;
  user: string;
  state: 'open' | 'submitted' | 'closed';
  view: {
    type: 'modal';
    title?: { text?: string };
    submit?: { text?: string };
    close?: { text?: string };
    blocks: unknown[];
  };
}

export interface AssistantStatus {
  status: string;
  loadingMessages: string[];
  title?: string;
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
  ephemerals: (user: string, channel: string, threadTs?: string) =>
    call<{ messages: Message[] }>(
      `/sandbox/slack/ephemerals?user=${q(user)}&channel=${q(channel)}${threadTs ? `&thread_ts=${q(threadTs)}` : ''}`,
    ),
  ephemeralAction: (input: { channel: string; user: string; action_id: string; value?: string }) =>
    call<{ ok: true }>('/sandbox/slack/ephemeral/action', input),
  command: (input: { channel: string; user: string; command: string; text: string }) =>
    call<{ ok: true; text?: string }>('/sandbox/slack/command', input),
  modals: (user: string) => call<{ views: StoredModal[] }>(`/sandbox/slack/views?user=${q(user)}`),
  submitModal: (input: { view_id: string; values: Record<string, Record<string, string>> }) =>
    call<{ ok: true }>('/sandbox/slack/views/submit', input),
  closeModal: (viewId: string) => call<{ ok: true }>('/sandbox/slack/views/close', { view_id: viewId }),
  assistantStatus: (channel: string, threadTs: string) =>
    call<AssistantStatus>(`/sandbox/slack/assistant/status?channel=${q(channel)}&thread_ts=${q(threadTs)}`),
};
