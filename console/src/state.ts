/** The console's state: what is selected, what was last loaded, and the actions views call. */

import type {
  Channel,
  ConversationDetail,
  ConversationSummary,
  ExecutionDetail,
  Message,
  RepositoryPage,
  User,
} from './api.ts';
import type { LiveMode } from './live.ts';
import type { AssistantStatus, StoredModal } from './surfaces-api.ts';

/** Which panel a phone shows (one at a time); wide screens show several side by side. */
export type View = 'channels' | 'channel' | 'thread' | 'conversation';

export interface State {
  channels: Channel[];
  users: User[];
  botUserId: string;
  postAs: string;
  channelId?: string;
  threadTs?: string;
  /** The thread's channel (a conversation's thread may be in another channel than the one shown). */
  threadChannel?: string;
  conversationId?: string;
  executionName?: string;
  /** An execution named by the address (`#execution=`), whose conversation is not known yet. */
  linkedExecution?: string;
  selectedState?: string;
  expandedEvents: Set<number>;
  /** Event history groups shown open, by the index of their first event. */
  expandedGroups: Set<number>;
  /** What the middle column shows on wide screens. */
  center: 'channel' | 'conversation';
  view: View;
  /**
   * Graph zoom: a factor, fit to the panel's width, or `focus`: readable size around the
   * state running now (or the last one), the whole graph when it fits at a readable size.
   */
  zoom: number | 'fit' | 'focus';
  live: LiveMode;
  error?: string;
  messages?: Message[];
  thread?: Message[];
  conversations: ConversationSummary[];
  detail?: ConversationDetail;
  execution?: ExecutionDetail;
  /** The sandbox's GitHub repositories, for the conversation's workspace (absent: not read yet). */
  repositories?: RepositoryPage[];
  /** The newest modal open for the reader (`views.open`), shown over the page. */
  modal?: StoredModal;
  /** The open thread's status, when it is an assistant thread (a direct message's). */
  assistantStatus?: AssistantStatus;
}

export interface Actions {
  selectChannel(id: string): void;
  openThread(channel: string, ts: string): void;
  closeThread(): void;
  openConversation(id: string, options?: { withThread?: boolean }): void;
  closeConversation(): void;
  selectExecution(name: string): void;
  selectState(name: string | undefined): void;
  toggleEvent(index: number): void;
  toggleEventGroup(start: number): void;
  /** Opens exactly these event groups (by first event), closing the others. */
  setEventGroups(starts: number[]): void;
  setView(view: View): void;
  setZoom(zoom: State['zoom']): void;
  setPostAs(user: string): void;
  /** Posts as the reader; a text that begins `/command` is sent as that slash command instead. */
  post(input: { channel: string; text: string; thread_ts?: string }): Promise<void>;
  /** A press of a button in an ephemeral message (only its reader has it). */
  pressEphemeral(input: { channel: string; action_id: string; value?: string }): Promise<void>;
  submitModal(viewId: string, values: Record<string, Record<string, string>>): Promise<void>;
  closeModal(viewId: string): Promise<void>;
  press(input: {
    channel: string;
    message_ts: string;
    action_id: string;
    value?: string;
    block_id?: string;
  }): Promise<void>;
}

/** The conversation running the execution `name` (named after it, or continued as new from it). */
export function conversationOfExecution(
  conversations: readonly ConversationSummary[],
  name: string,
): ConversationSummary | undefined {
  return (
    conversations.find((c) => c.executionName === name) ??
    conversations.find((c) => name === c.id || name.startsWith(`${c.id}-`))
  );
}

/** The conversation owning a thread (by its anchors), if any. */
export function conversationOfThread(
  state: State,
  channel: string | undefined,
  ts: string | undefined,
): ConversationSummary | undefined {
  if (!channel || !ts) return undefined;
  return state.conversations.find((c) => c.anchors.some((a) => a.channel === channel && a.threadTs === ts));
}

export function userName(state: State, id: string | undefined): string {
  if (!id) return 'unknown';
  if (id === state.botUserId) return 'agent';
  const user = state.users.find((u) => u.id === id);
  return user?.realName ?? user?.name ?? id;
}

export function channelName(state: State, id: string | undefined): string {
  if (!id) return '';
  return state.channels.find((c) => c.id === id)?.name ?? id;
}
