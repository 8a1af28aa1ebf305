/** Reading what the console shows from the sandbox's JSON API into the state. */

import { ApiError, api, type Message, type RepositoryPage } from './api.ts';
import { type Actions, conversationOfExecution, type State } from './state.ts';
import { surfacesApi } from './surfaces-api.ts';

/** A channel's or thread's messages with the reader's ephemeral ones among them, in ts order. */
async function withEphemerals(
  user: string,
  channel: string,
  threadTs: string | undefined,
  messages: Promise<Message[]>,
): Promise<Message[]> {
  const [shared, own] = await Promise.all([
    messages,
    surfacesApi.ephemerals(user, channel, threadTs).then(
      (r) => r.messages,
      () => [],
    ),
  ]);
  return [...shared, ...own].sort((a, b) => Number(a.ts) - Number(b.ts));
}

/** What loading needs of the page: opening the conversation an execution link names. */
export interface LoadHooks {
  openConversation: Actions['openConversation'];
}

/** The workspace's channels and users (once), and what is shown now (on every refresh). */
export function createLoader(state: State, hooks: LoadHooks) {
  async function loadWorkspace(): Promise<void> {
    const [channels, users] = await Promise.all([api.channels(), api.users()]);
    state.channels = channels.channels;
    state.botUserId = channels.bot_user_id;
    state.users = users.users;
  }

  async function load(): Promise<void> {
    // The sandbox may have been down when the page opened.
    if (state.channels.length === 0) await loadWorkspace();
    const at = {
      channelId: state.channelId,
      threadChannel: state.threadChannel,
      threadTs: state.threadTs,
      conversationId: state.conversationId,
      user: state.postAs,
    };
    const notFound = <T>(promise: Promise<T>): Promise<T | undefined> =>
      promise.catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      });
    const [conversations, messages, thread, detail, modals, assistant] = await Promise.all([
      api.conversations().then((r) => r.conversations),
      at.channelId
        ? notFound(
            withEphemerals(
              at.user,
              at.channelId,
              undefined,
              api.messages(at.channelId).then((r) => r.messages),
            ),
          )
        : undefined,
      at.threadChannel && at.threadTs
        ? notFound(
            withEphemerals(
              at.user,
              at.threadChannel,
              at.threadTs,
              api.messages(at.threadChannel, at.threadTs).then((r) => r.messages),
            ),
          )
        : undefined,
      at.conversationId ? notFound(api.conversation(at.conversationId)) : undefined,
      at.user ? surfacesApi.modals(at.user).then((r) => r.views.filter((v) => v.state === 'open')) : [],
      // A direct message's thread is an assistant thread: the app sets its status.
      at.threadChannel?.startsWith('D') && at.threadTs
        ? notFound(surfacesApi.assistantStatus(at.threadChannel, at.threadTs))
        : undefined,
    ]);
    state.conversations = conversations;
    if (state.postAs === at.user) {
      const modal = modals.at(-1);
      if (modal) state.modal = modal;
      else delete state.modal;
    }
    if (assistant && state.threadTs === at.threadTs) state.assistantStatus = assistant;
    else delete state.assistantStatus;
    if (state.linkedExecution && !state.conversationId) {
      const linked = conversationOfExecution(conversations, state.linkedExecution);
      if (linked) {
        const execution = state.linkedExecution;
        delete state.linkedExecution;
        hooks.openConversation(linked.id, { withThread: true });
        state.executionName = execution;
        return;
      }
    }
    // The reader may have moved on while this loaded: keep only what is still shown.
    if (state.channelId === at.channelId && state.postAs === at.user) state.messages = messages ?? [];
    if (
      state.threadTs === at.threadTs &&
      state.threadChannel === at.threadChannel &&
      state.postAs === at.user
    )
      state.thread = thread ?? [];
    if (state.conversationId !== at.conversationId || !at.conversationId) return;
    if (!detail) {
      delete state.detail;
      delete state.execution;
      return;
    }
    state.detail = detail;
    const names = detail.executions.map((e) => e.name);
    if (!state.executionName || !names.includes(state.executionName)) {
      const owned = detail.conversation.executionName;
      const latest = [...detail.executions].sort((a, b) => b.startDate.localeCompare(a.startDate))[0]?.name;
      const chosen = owned && names.includes(owned) ? owned : latest;
      if (chosen) state.executionName = chosen;
      else delete state.executionName;
    }
    const name = state.executionName;
    const [execution, repositories] = await Promise.all([
      name ? notFound(api.execution(name)) : undefined,
      loadRepositories(),
    ]);
    if (state.conversationId !== at.conversationId || state.executionName !== name) return;
    if (execution) state.execution = execution;
    else delete state.execution;
    state.repositories = repositories;
  }

  /** The sandbox GitHub's repositories with their branches and pulls; none when it has no GitHub. */
  async function loadRepositories(): Promise<RepositoryPage[]> {
    try {
      const { repositories } = await api.repositories();
      return await Promise.all(repositories.map((r) => api.repository(r.full_name)));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return [];
      throw error;
    }
  }

  return { loadWorkspace, load };
}
