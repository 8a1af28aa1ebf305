import { api } from './api.ts';
import type { Actions, State } from './state.ts';
import { surfacesApi } from './surfaces-api.ts';

/** `/prd a dark mode` -> the command and its text, as Slack splits what the composer holds. */
export function slashCommandOf(text: string): { command: string; text: string } | undefined {
  const match = /^(\/[a-z0-9_-]+)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  return match?.[1] ? { command: match[1].toLowerCase(), text: (match[2] ?? '').trim() } : undefined;
}

/** What the actions need from the page: re-render, re-read, and forget the followed state. */
export interface ActionHooks {
  /** A change of what is shown: re-render now, re-read soon unless `reload` is false. */
  changed(reload?: boolean): void;
  render(): void;
  scheduleRefresh(delay?: number): void;
  /** The graph's current state is no longer the one to scroll to (another execution is shown). */
  forgetCurrentState(): void;
}

/** What the user can do in the console: each changes `state` and tells the page. */
export function createActions(state: State, hooks: ActionHooks): Actions {
  return {
    selectChannel(id) {
      if (state.channelId !== id) {
        state.channelId = id;
        delete state.messages;
      }
      state.center = 'channel';
      state.view = 'channel';
      hooks.changed();
    },
    openThread(channel, ts) {
      if (state.threadTs !== ts || state.threadChannel !== channel) {
        state.threadChannel = channel;
        state.threadTs = ts;
        delete state.thread;
      }
      state.view = 'thread';
      hooks.changed();
    },
    closeThread() {
      delete state.threadTs;
      delete state.threadChannel;
      delete state.thread;
      state.view = state.center === 'conversation' ? 'conversation' : 'channel';
      hooks.changed(false);
    },
    openConversation(id, options = {}) {
      if (state.conversationId !== id) {
        state.conversationId = id;
        delete state.detail;
        delete state.execution;
        delete state.executionName;
        delete state.selectedState;
        state.expandedEvents = new Set();
        state.expandedGroups = new Set();
        hooks.forgetCurrentState();
      }
      // A conversation begun outside Slack (a GitHub issue, an alert) has no thread to open
      // first: its anchor names the issue or the alert, shown in the conversation's header.
      const anchor = state.conversations
        .find((c) => c.id === id)
        ?.anchors.find((a) => !a.channel.includes(':'));
      if (options.withThread && anchor) {
        state.threadChannel = anchor.channel;
        state.threadTs = anchor.threadTs;
        delete state.thread;
        if (!state.channelId) state.channelId = anchor.channel;
      }
      state.center = 'conversation';
      state.view = 'conversation';
      hooks.changed();
    },
    closeConversation() {
      delete state.conversationId;
      delete state.detail;
      delete state.execution;
      delete state.executionName;
      state.center = 'channel';
      state.view = 'channel';
      hooks.changed(false);
    },
    selectExecution(name) {
      state.executionName = name;
      delete state.execution;
      delete state.selectedState;
      state.expandedEvents = new Set();
      state.expandedGroups = new Set();
      hooks.forgetCurrentState();
      hooks.changed();
    },
    selectState(name) {
      if (name === undefined) delete state.selectedState;
      else state.selectedState = name;
      hooks.changed(false);
    },
    toggleEvent(index) {
      if (state.expandedEvents.has(index)) state.expandedEvents.delete(index);
      else state.expandedEvents.add(index);
      hooks.changed(false);
    },
    toggleEventGroup(start) {
      if (state.expandedGroups.has(start)) state.expandedGroups.delete(start);
      else state.expandedGroups.add(start);
      hooks.changed(false);
    },
    setEventGroups(starts) {
      state.expandedGroups = new Set(starts);
      hooks.changed(false);
    },
    setView(view) {
      state.view = view;
      if (view === 'conversation') state.center = 'conversation';
      if (view === 'channel') state.center = 'channel';
      hooks.changed(false);
    },
    setZoom(zoom) {
      state.zoom = zoom;
      hooks.changed(false);
    },
    setPostAs(user) {
      state.postAs = user;
      // Ephemeral messages and modals are the reader's own: read them for the new one.
      delete state.modal;
      hooks.changed();
    },
    async post(input) {
      const command = slashCommandOf(input.text);
      // Slack sends a typed command to the app, not to the channel (nor to a thread).
      if (command) await surfacesApi.command({ channel: input.channel, user: state.postAs, ...command });
      else await api.post({ ...input, user: state.postAs });
      hooks.scheduleRefresh(0);
    },
    async pressEphemeral(input) {
      await run('The button press failed', () =>
        surfacesApi.ephemeralAction({ ...input, user: state.postAs }),
      );
    },
    async submitModal(viewId, values) {
      await run('The form could not be sent', () => surfacesApi.submitModal({ view_id: viewId, values }));
      delete state.modal;
      hooks.render();
    },
    async closeModal(viewId) {
      await run('The form could not be closed', () => surfacesApi.closeModal(viewId));
      delete state.modal;
      hooks.render();
    },
    async press(input) {
      await run('The button press failed', () => api.action({ ...input, user: state.postAs }));
    },
  };

  /** Runs a request for the reader, says when it failed, and re-reads what is shown. */
  async function run(what: string, request: () => Promise<unknown>): Promise<void> {
    try {
      await request();
      delete state.error;
    } catch (error) {
      state.error = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    }
    hooks.render();
    hooks.scheduleRefresh(0);
  }
}
