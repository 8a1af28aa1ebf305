/** The fake Slack workspace: channel list, a channel's messages, a thread, and composers. */

import type { Message } from './api.ts';
import { renderMessageBody } from './blocks.ts';
import { type Child, h } from './dom.ts';
import { clock, hue, humanize, initials, tsDate } from './format.ts';
import { originOf, readableStatus, subjectLine } from './readable.ts';
import { type Actions, channelName, conversationOfThread, type State, userName } from './state.ts';
import { surfacesApi } from './surfaces-api.ts';

export function renderSidebar(state: State, actions: Actions): Child[] {
  const workflowsIn = (channel: string) => [
    ...new Set(
      state.conversations
        .filter((c) => c.anchors.some((a) => a.channel === channel))
        .map((c) => humanize(c.workflow)),
    ),
  ];
  const channels = h(
    'nav',
    { class: 'channel-list', 'aria-label': 'Channels' },
    h('h2', null, 'Channels'),
    state.channels.map((channel) => {
      const workflows = workflowsIn(channel.id);
      return h(
        'button',
        {
          type: 'button',
          class: `channel-link${state.channelId === channel.id ? ' active' : ''}`,
          'data-testid': 'channel-link',
          'data-channel': channel.id,
          onclick: () => actions.selectChannel(channel.id),
        },
        h('span', { class: 'channel-name' }, `# ${channel.name}`),
        workflows.length > 0 ? h('span', { class: 'channel-workflows' }, workflows.join(', ')) : null,
      );
    }),
  );
  const conversations = h(
    'nav',
    { class: 'conversation-list', 'aria-label': 'Conversations', 'data-testid': 'conversation-list' },
    h('h2', null, 'Conversations'),
    state.conversations.length === 0
      ? h('p', { class: 'empty' }, 'None yet: post in a channel a workflow listens to.')
      : null,
    state.conversations.map((c) =>
      h(
        'button',
        {
          type: 'button',
          class: `conversation-link${state.conversationId === c.id ? ' active' : ''}`,
          'data-testid': 'conversation-link',
          'data-conversation': c.id,
          title: `${c.opening ?? humanize(c.workflow)}\n${c.id}`,
          onclick: () => actions.openConversation(c.id, { withThread: true }),
        },
        h(
          'span',
          { class: 'conversation-title', 'data-testid': 'conversation-subject' },
          c.agentTurnRunning ? h('span', { class: 'spinner', 'aria-label': 'agent turn running' }) : null,
          subjectLine(c.opening, (id) => userName(state, id)) ?? humanize(c.workflow),
        ),
        h(
          'span',
          { class: 'conversation-meta' },
          h(
            'span',
            {
              class: `badge status-${c.status}`,
              title: `${c.status} · ${c.phase}`,
              'data-testid': 'list-status',
            },
            readableStatus(c.status, c.phase),
          ),
          ` ${humanize(c.workflow)}${originOf(c.anchors[0]) ? ` · ${originOf(c.anchors[0])}` : ''} · ${clock(new Date(c.createdAt))}`,
        ),
      ),
    ),
  );
  return [channels, conversations];
}

function avatar(state: State, message: Message): HTMLElement {
  const name = userName(state, message.user);
  return h(
    'div',
    {
      class: `avatar${message.bot ? ' bot' : ''}`,
      style: message.bot ? undefined : `background: hsl(${hue(message.user ?? '')} 45% 45%)`,
      'aria-hidden': 'true',
    },
    message.bot ? '🤖' : initials(name),
  );
}

export interface MessageOptions {
  channel: string;
  inThread: boolean;
}

/**
 * The votes pressed in this page, by channel, message and viewer: a view renders its messages
 * anew whenever the sandbox reports a change (the press itself causes one), and a button shows
 * its press from here, not from the node that was clicked.
 */
const pressedVotes = new Map<string, 'up' | 'down'>();

export function renderMessage(
  state: State,
  actions: Actions,
  message: Message,
  options: MessageOptions,
): HTMLElement {
  const voteKey = `${options.channel} ${message.ts} ${state.postAs}`;
  const pressed = pressedVotes.get(voteKey);
  const ctx = {
    ...(pressed ? { pressed } : {}),
    userName: (id: string) => userName(state, id),
    channelName: (id: string) => channelName(state, id),
    onAction: (action: { action_id: string; value?: string; block_id?: string }) =>
      void (message.ephemeral
        ? actions.pressEphemeral({
            channel: options.channel,
            action_id: action.action_id,
            ...(action.value === undefined ? {} : { value: action.value }),
          })
        : actions.press({ channel: options.channel, message_ts: message.ts, ...action })),
    onFeedback: async (vote: 'up' | 'down') => {
      await surfacesApi.feedback({
        channel: options.channel,
        user: state.postAs,
        message_ts: message.ts,
        vote,
      });
      pressedVotes.set(voteKey, vote);
    },
  };
  const conversation =
    !options.inThread && message.conversation_id
      ? (state.conversations.find((c) => c.id === message.conversation_id) ?? {
          id: message.conversation_id,
          workflow: 'conversation',
          status: '',
          phase: '',
        })
      : undefined;
  const replies = message.reply_count ?? 0;
  const openThread = () => actions.openThread(options.channel, message.ts);
  return h(
    'article',
    {
      class: `message${message.bot ? ' from-bot' : ''}${message.ephemeral ? ' ephemeral' : ''}${state.threadTs === message.ts && !options.inThread ? ' open' : ''}`,
      'data-testid': message.ephemeral ? 'ephemeral-message' : 'message',
      'data-ts': message.ts,
      'data-user': message.user ?? '',
    },
    avatar(state, message),
    h(
      'div',
      { class: 'message-main' },
      h(
        'div',
        { class: 'message-meta' },
        h('span', { class: 'author' }, userName(state, message.user)),
        message.bot ? h('span', { class: 'app-badge' }, 'APP') : null,
        h(
          'time',
          { datetime: tsDate(message.ts).toISOString(), title: message.ts },
          clock(tsDate(message.ts)),
        ),
      ),
      h('div', { class: 'message-body', 'data-testid': 'message-body' }, renderMessageBody(message, ctx)),
      message.ephemeral
        ? h('div', { class: 'ephemeral-note', 'data-testid': 'ephemeral-note' }, '👁 Only visible to you')
        : null,
      options.inThread || message.ephemeral
        ? null
        : h(
            'div',
            { class: 'message-actions' },
            h(
              'button',
              { type: 'button', class: 'link', 'data-testid': 'open-thread', onclick: openThread },
              replies > 0 ? `${replies} ${replies === 1 ? 'reply' : 'replies'}` : 'Reply in thread',
            ),
            conversation
              ? h(
                  'button',
                  {
                    type: 'button',
                    class: 'chip',
                    'data-testid': 'open-conversation',
                    title: conversation.id,
                    onclick: () => {
                      actions.openThread(options.channel, message.ts);
                      actions.openConversation(conversation.id);
                    },
                  },
                  `⚙ ${humanize(conversation.workflow)}${conversation.status ? ` · ${readableStatus(conversation.status, conversation.phase)}` : ''}`,
                )
              : null,
          ),
    ),
  );
}

export function renderChannelHeader(state: State, actions: Actions): Child[] {
  const name = channelName(state, state.channelId);
  return [
    h('h1', null, state.channelId ? `# ${name}` : 'Pick a channel'),
    state.conversationId
      ? h(
          'button',
          {
            type: 'button',
            class: 'tab-switch',
            onclick: () => actions.openConversation(state.conversationId ?? ''),
          },
          'Conversation ▸',
        )
      : null,
  ];
}

export function renderChannelMessages(state: State, actions: Actions): Child[] {
  const channel = state.channelId;
  if (!channel) return [h('p', { class: 'empty' }, 'Pick a channel on the left.')];
  const messages = state.messages ?? [];
  if (messages.length === 0)
    return [
      h('p', { class: 'empty' }, `Nothing in #${channelName(state, channel)} yet. Say something below.`),
    ];
  return messages.map((m) => renderMessage(state, actions, m, { channel, inThread: false }));
}

export function renderThreadHeader(state: State, actions: Actions): Child[] {
  const conversation = conversationOfThread(state, state.threadChannel, state.threadTs);
  // The title and chip wrap within their own box, and the close button keeps a column of its
  // own: it never sits over the title or the chip, whatever their length.
  return [
    h(
      'div',
      { class: 'head-main' },
      h('h1', null, 'Thread', h('span', { class: 'sub' }, ` # ${channelName(state, state.threadChannel)}`)),
      conversation
        ? h(
            'button',
            {
              type: 'button',
              class: 'chip',
              'data-testid': 'thread-conversation',
              onclick: () => actions.openConversation(conversation.id),
            },
            `⚙ ${humanize(conversation.workflow)}`,
          )
        : null,
      // An assistant thread's status (`assistant.threads.setStatus`), as Slack shows it under the thread.
      state.assistantStatus?.status
        ? h(
            'span',
            { class: 'assistant-status', 'data-testid': 'assistant-status' },
            `${userName(state, state.botUserId)} ${state.assistantStatus.status}`,
          )
        : null,
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'icon close',
        title: 'Close the thread',
        'aria-label': 'Close the thread',
        'data-testid': 'close-thread',
        onclick: () => actions.closeThread(),
      },
      '✕',
    ),
  ];
}

export function renderThreadMessages(state: State, actions: Actions): Child[] {
  const channel = state.threadChannel;
  if (!channel || !state.threadTs) return [];
  const [root, ...replies] = state.thread ?? [];
  const conversation = conversationOfThread(state, channel, state.threadTs);
  const out: HTMLElement[] = [];
  if (root) out.push(renderMessage(state, actions, root, { channel, inThread: true }));
  out.push(
    h('div', { class: 'reply-count' }, `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`),
    ...replies.map((m) => renderMessage(state, actions, m, { channel, inThread: true })),
  );
  if (conversation?.agentTurnRunning) {
    out.push(
      h(
        'div',
        { class: 'thinking', 'data-testid': 'thinking', role: 'status' },
        h('span', { class: 'avatar bot small' }, '🤖'),
        'agent is thinking',
        h('span', { class: 'dots' }, h('i'), h('i'), h('i')),
      ),
    );
  }
  return out;
}

export interface Composer {
  element: HTMLElement;
  update(placeholder: string, enabled: boolean): void;
}

/** A message box: Enter sends, Shift+Enter is a new line. */
export function createComposer(testId: string, send: (text: string) => Promise<void>): Composer {
  const input = h('textarea', { rows: 1, 'aria-label': 'Message', 'data-testid': 'composer-input' });
  const button = h(
    'button',
    { type: 'submit', class: 'send', 'data-testid': 'composer-send', title: 'Send' },
    'Send',
  );
  const error = h('div', { class: 'composer-error', role: 'alert' });
  const submit = async () => {
    const text = input.value.trim();
    if (!text || button.disabled) return;
    button.disabled = true;
    error.textContent = '';
    try {
      await send(text);
      input.value = '';
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : String(e);
    } finally {
      button.disabled = false;
      input.focus();
    }
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void submit();
    }
  });
  const form = h(
    'form',
    { class: 'composer', 'data-testid': testId },
    h('div', { class: 'composer-row' }, input, button),
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  return {
    element: form,
    update(placeholder, enabled) {
      input.placeholder = placeholder;
      input.disabled = !enabled;
    },
  };
}
