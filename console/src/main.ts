/**
 * The sandbox web console: the fake Slack workspace (channels, messages, threads, a composer
 * posting as any user, working buttons) beside each conversation's execution graph, event
 * history, stored messages and ledger. Everything is re-read from the sandbox's JSON API when
 * its change stream says something changed.
 */

import { createActions } from './actions.ts';
import { renderConversationBody, renderConversationHeader } from './conversation-view.ts';
import { h } from './dom.ts';
import { fitGraph, scrollToCurrentState } from './graph-scroll.ts';
import { createHomeTab } from './home-tab.ts';
import { type LiveMode, watchChanges } from './live.ts';
import { createLoader } from './load.ts';
import { DEFAULT_USER, hashOf, stateFromHash } from './location.ts';
import { renderModal } from './modal-view.ts';
import { update, updateList } from './render-cache.ts';
import { channelName, type State, userName, type View } from './state.ts';
import {
  createComposer,
  renderChannelHeader,
  renderChannelMessages,
  renderSidebar,
  renderThreadHeader,
  renderThreadMessages,
} from './workspace-view.ts';

const state: State = {
  channels: [],
  users: [],
  botUserId: 'U_BOT',
  postAs: DEFAULT_USER,
  expandedEvents: new Set(),
  expandedGroups: new Set(),
  center: 'channel',
  view: 'channels',
  zoom: 'focus',
  live: 'connecting',
  conversations: [],
  ...stateFromHash(),
};

function toHash(): void {
  history.replaceState(null, '', hashOf(state));
}

// ---- the shell: panes built once; their contents are re-rendered when their data changes ----

const homeTab = createHomeTab(state);
const liveBadge = h('span', { class: 'live', 'data-testid': 'live' });
const errorBanner = h('div', { class: 'error-banner', role: 'alert', hidden: true });
const postAsSelect = h('select', { 'data-testid': 'post-as', 'aria-label': 'Post as' });
postAsSelect.addEventListener('change', () => actions.setPostAs(postAsSelect.value));
const topbar = h(
  'header',
  { class: 'topbar' },
  h(
    'div',
    { class: 'brand' },
    h('span', { class: 'logo' }, '◆'),
    h('span', { class: 'brand-name' }, 'Sandbox console'),
  ),
  liveBadge,
  homeTab.button,
  h('label', { class: 'post-as' }, h('span', null, 'Post as'), postAsSelect),
);
const phoneNav = h('nav', { class: 'phone-nav', 'aria-label': 'Panels' });

const sidebar = h('aside', { class: 'pane sidebar', 'data-pane': 'channels' });

const channelHeader = h('div', { class: 'pane-head' });
const channelBody = h('div', { class: 'pane-body messages', 'data-testid': 'channel-messages' });
const channelComposer = createComposer('channel-composer', async (text) => {
  if (!state.channelId) return;
  await actions.post({ channel: state.channelId, text });
  stickChannelToBottom = true;
});
const channelPane = h(
  'main',
  { class: 'pane channel-pane', 'data-pane': 'channel', 'data-testid': 'channel-pane' },
  channelHeader,
  channelBody,
  channelComposer.element,
);

const conversationHeader = h('div', { class: 'pane-head' });
const conversationBody = h('div', { class: 'pane-body conversation-body' });
const conversationPane = h(
  'section',
  { class: 'pane conversation-pane', 'data-pane': 'conversation', 'data-testid': 'conversation-pane' },
  conversationHeader,
  conversationBody,
);

const threadHeader = h('div', { class: 'pane-head' });
const threadBody = h('div', { class: 'pane-body messages', 'data-testid': 'thread-messages' });
const threadComposer = createComposer('thread-composer', async (text) => {
  if (!state.threadChannel || !state.threadTs) return;
  await actions.post({ channel: state.threadChannel, text, thread_ts: state.threadTs });
  stickThreadToBottom = true;
});
const threadPane = h(
  'aside',
  { class: 'pane thread-pane', 'data-pane': 'thread', 'data-testid': 'thread-pane' },
  threadHeader,
  threadBody,
  threadComposer.element,
);

const root = document.getElementById('app') as HTMLElement;
root.classList.add('app');
const modalHost = h('div', { class: 'modal-host' });
root.append(
  topbar,
  errorBanner,
  phoneNav,
  sidebar,
  channelPane,
  conversationPane,
  threadPane,
  homeTab.panel,
  modalHost,
);

let stickChannelToBottom = false;
let stickThreadToBottom = false;

// ---- rendering ----

let lastCurrentState: string | undefined;

function applyZoom(): void {
  fitGraph(conversationBody, state.zoom);
}

/** Brings the state running now into view once it changed (not on every refresh: the reader may be scrolling). */
function revealCurrentState(): void {
  lastCurrentState = scrollToCurrentState(conversationBody, lastCurrentState);
}

function renderConversation(): void {
  const key = JSON.stringify([
    state.conversationId,
    state.detail,
    state.execution,
    state.executionName,
    state.repositories,
    state.selectedState,
    [...state.expandedEvents],
    [...state.expandedGroups],
    state.zoom,
    state.users,
  ]);
  update(
    conversationHeader,
    JSON.stringify([
      state.conversationId,
      state.detail?.conversation,
      state.detail?.executions,
      state.executionName,
    ]),
    () => renderConversationHeader(state, actions),
  );
  const scroller = conversationBody.querySelector<HTMLElement>('.graph-scroll');
  const graphScroll = scroller ? { top: scroller.scrollTop, left: scroller.scrollLeft } : undefined;
  const bodyTop = conversationBody.scrollTop;
  if (update(conversationBody, key, () => renderConversationBody(state, actions))) {
    conversationBody.scrollTop = bodyTop;
    applyZoom();
    // A check's output tail ends where the failure is reported: show its end first.
    for (const tail of conversationBody.querySelectorAll<HTMLElement>('.check-tail')) {
      tail.scrollTop = tail.scrollHeight;
    }
    const next = conversationBody.querySelector<HTMLElement>('.graph-scroll');
    if (next && graphScroll) {
      next.scrollTop = graphScroll.top;
      next.scrollLeft = graphScroll.left;
    }
  } else if (state.zoom === 'fit' || state.zoom === 'focus') {
    // The panel may have just been shown: fit its width now.
    applyZoom();
  }
  revealCurrentState();
}

function renderPhoneNav(): void {
  const tab = (view: View, label: string, enabled: boolean) =>
    h(
      'button',
      {
        type: 'button',
        class: state.view === view ? 'active' : '',
        'data-testid': `nav-${view}`,
        disabled: !enabled,
        onclick: () => actions.setView(view),
      },
      label,
    );
  update(
    phoneNav,
    JSON.stringify([state.view, state.channelId, state.threadTs, state.conversationId, state.channels]),
    () => [
      tab('channels', 'Channels', true),
      tab(
        'channel',
        state.channelId ? `#${channelName(state, state.channelId)}` : 'Channel',
        Boolean(state.channelId),
      ),
      tab('thread', 'Thread', Boolean(state.threadTs)),
      tab('conversation', 'Workflow', Boolean(state.conversationId)),
    ],
  );
}

function render(): void {
  root.dataset.view = state.view;
  root.dataset.center = state.center;
  root.dataset.thread = state.threadTs ? 'open' : 'closed';
  liveBadge.textContent = { connecting: '○ connecting', live: '● live', polling: '◐ polling' }[state.live];
  liveBadge.dataset.mode = state.live;
  errorBanner.hidden = !state.error;
  errorBanner.textContent = state.error ?? '';
  update(postAsSelect, JSON.stringify([state.users, state.postAs]), () =>
    state.users.map((u) =>
      h('option', { value: u.id, selected: u.id === state.postAs }, `${u.realName ?? u.name} (${u.id})`),
    ),
  );
  renderPhoneNav();
  update(
    sidebar,
    JSON.stringify([state.channels, state.conversations, state.channelId, state.conversationId]),
    () => renderSidebar(state, actions),
  );
  update(channelHeader, JSON.stringify([state.channelId, state.channels, state.conversationId]), () =>
    renderChannelHeader(state, actions),
  );
  // Built again only for another modal, so what the reader types in one stays.
  update(modalHost, state.modal?.id ?? '', () => [renderModal(state, actions)]);
  const chips = state.conversations.map((c) => [c.id, c.workflow, c.status, c.phase]);
  updateList(
    channelBody,
    state.channelId ?? '',
    JSON.stringify([state.messages, state.threadTs, chips, state.users]),
    () => renderChannelMessages(state, actions),
    stickChannelToBottom,
  );
  stickChannelToBottom = false;
  channelComposer.update(
    state.channelId
      ? `Message #${channelName(state, state.channelId)} as ${userName(state, state.postAs)}`
      : 'Pick a channel',
    Boolean(state.channelId),
  );
  if (state.threadTs) {
    update(
      threadHeader,
      JSON.stringify([
        state.threadChannel,
        state.threadTs,
        state.conversations.map((c) => [c.id, c.anchors]),
        state.assistantStatus,
      ]),
      () => renderThreadHeader(state, actions),
    );
    const running = state.conversations.filter((c) => c.agentTurnRunning).map((c) => c.id);
    updateList(
      threadBody,
      `${state.threadChannel}/${state.threadTs}`,
      JSON.stringify([state.thread, running, state.users]),
      () => renderThreadMessages(state, actions),
      stickThreadToBottom,
    );
    stickThreadToBottom = false;
    threadComposer.update(`Reply in the thread as ${userName(state, state.postAs)}`, true);
  }
  if (state.conversationId) renderConversation();
}

// ---- loading ----

const { loadWorkspace, load } = createLoader(state, {
  openConversation: (id, options) => actions.openConversation(id, options),
});

let inFlight = false;
let again = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let firstPending: number | undefined;

async function refresh(): Promise<void> {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    await load();
    delete state.error;
  } catch (error) {
    state.error = `The sandbox did not answer: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    inFlight = false;
    render();
    if (again) {
      again = false;
      scheduleRefresh(0);
    }
  }
}

/** Changes come in bursts: wait for a pause (but no more than 500 ms) before re-reading. */
function scheduleRefresh(delay = 100): void {
  const now = Date.now();
  firstPending ??= now;
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(
    () => {
      timer = undefined;
      firstPending = undefined;
      void refresh();
    },
    Math.max(0, Math.min(delay, firstPending + 500 - now)),
  );
}

/** Applies a change of what is shown: re-render now, re-read soon. */
function changed(reload = true): void {
  toHash();
  render();
  if (reload) scheduleRefresh(0);
}

const actions = createActions(state, {
  changed,
  render,
  scheduleRefresh,
  forgetCurrentState: () => {
    lastCurrentState = undefined;
  },
});

window.addEventListener('resize', () => {
  if (state.zoom === 'fit' || state.zoom === 'focus') applyZoom();
});

async function start(): Promise<void> {
  try {
    await loadWorkspace();
  } catch (error) {
    state.error = `The sandbox did not answer: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!state.users.some((u) => u.id === state.postAs)) state.postAs = state.users[0]?.id ?? DEFAULT_USER;
  if (!state.channelId) {
    const first = state.channels.find((c) => c.name === 'bug-reports') ?? state.channels[0];
    if (first) state.channelId = first.id;
  }
  if (state.view === 'channels' && state.channelId) state.view = 'channel';
  changed();
  watchChanges(
    () => scheduleRefresh(),
    (mode: LiveMode) => {
      state.live = mode;
      render();
    },
  );
}

void start();
