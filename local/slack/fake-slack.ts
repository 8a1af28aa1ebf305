/**
 * An in-memory Slack workspace: channels, users, the bot, and every message posted by users
 * (`postAsUser`) or by the bot through the Web API (`api.ts`). Each new message is announced
 * to `onMessage` subscribers, in order within its thread, so the sandbox can turn it into a
 * signed Events API request, the bot's own posts included.
 */

import { SlackApiError } from './errors.ts';
import { SlackFaults } from './faults.ts';
import { FileUploads } from './file-uploads.ts';
import { MessageDelivery, type MessageListener } from './message-delivery.ts';
import { editedMessage, messageView } from './message-view.ts';
import type {
  EphemeralMessage,
  FakeSlackOptions,
  SlackApiCall,
  SlackChannel,
  SlackFile,
  SlackMessageEvent,
  SlackMessageMetadata,
  SlackMessageView,
  SlackUser,
  StoredSlackMessage,
} from './types.ts';

export { SlackApiError } from './errors.ts';
export type * from './types.ts';

export class FakeSlack {
  readonly botToken: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly appId: string;
  readonly botName: string;
  readonly teamId: string;
  readonly teamName: string;
  private readonly clock: () => number;
  private readonly channelList: SlackChannel[];
  readonly userList = new Map<string, SlackUser>();
  readonly history = new Map<string, StoredSlackMessage[]>();
  readonly lastMicros = new Map<string, number>();
  readonly ephemeralList: EphemeralMessage[] = [];
  private readonly callLog: SlackApiCall[] = [];
  private readonly delivery: MessageDelivery;
  readonly uploads = new FileUploads();
  private readonly userGroups: Record<string, string[]>;
  /** Misbehaviour on purpose, for a while (the sandbox's `/sandbox/faults`). */
  readonly faults: SlackFaults;

  constructor(options: FakeSlackOptions) {
    this.userGroups = { ...(options.userGroups ?? {}) };
    this.botToken = options.botToken;
    this.botUserId = options.botUserId ?? 'U_BOT';
    this.botId = options.botId ?? 'B_BOT';
    this.appId = options.appId ?? 'A_BOT';
    this.botName = options.botName ?? 'agent';
    this.teamId = options.teamId ?? 'T_SANDBOX';
    this.teamName = options.teamName ?? 'sandbox';
    this.clock = options.now ?? Date.now;
    this.faults = new SlackFaults(this.clock);
    this.delivery = new MessageDelivery(
      options.onListenerError ??
        ((error, event) => console.error(`[fake slack] onMessage failed for ${event.ts}`, error)),
    );
    this.channelList = [...(options.channels ?? [{ id: 'C_GENERAL', name: 'general' }])];
    for (const channel of this.channelList) this.history.set(channel.id, []);
    for (const user of options.users ?? []) this.userList.set(user.id, user);
    this.userList.set(this.botUserId, { id: this.botUserId, name: this.botName, realName: this.botName });
  }

  /**
   * Subscribes to every new message. Events are delivered in the order posted within a thread
   * (within a channel for top-level posts), each after its thread's root, and side by side
   * across threads, as Slack's Events API delivers them; a subscriber's promise is awaited
   * before the next event of the same thread goes out. Returns the unsubscribe function.
   */
  onMessage(listener: MessageListener): () => void {
    return this.delivery.subscribe(listener);
  }

  /**
   * Resolves once every event so far has been delivered to the subscribers; given a message,
   * once it and the events before it in its thread (its channel, for a top-level post) have.
   */
  settled(message?: { channel: string; ts: string }): Promise<void> {
    if (message === undefined) return this.delivery.settled();
    const { channel, ts, thread_ts, broadcast } = this.find(this.channelId(message.channel), message.ts);
    return this.delivery.settled({
      channel,
      ts,
      thread_ts,
      ...(broadcast ? { subtype: 'thread_broadcast' } : {}),
    });
  }

  /** A user posts in a channel or thread. Unknown user ids join the workspace on first post. */
  postAsUser(input: {
    channel: string;
    user: string;
    text: string;
    thread_ts?: string;
    blocks?: unknown[];
  }): {
    ts: string;
  } {
    if (!this.userList.has(input.user))
      this.userList.set(input.user, { id: input.user, name: input.user.toLowerCase() });
    const message = this.post({ ...input, bot_id: undefined, broadcast: false });
    return { ts: message.ts };
  }

  /** The bot posts (what `chat.postMessage` does). */
  postAsBot(input: {
    channel: string;
    text: string;
    thread_ts?: string;
    blocks?: unknown[];
    broadcast?: boolean;
    metadata?: SlackMessageMetadata;
  }): StoredSlackMessage {
    return this.post({
      ...input,
      user: this.botUserId,
      bot_id: this.botId,
      broadcast: input.broadcast ?? false,
    });
  }

  /** The bot edits one of its messages (what `chat.update` does). */
  updateAsBot(input: { channel: string; ts: string; text?: string; blocks?: unknown[] }): StoredSlackMessage {
    const message = this.find(this.channelId(input.channel), input.ts);
    if (message.user !== this.botUserId) throw new SlackApiError('cant_update_message');
    if (input.text !== undefined) message.text = input.text;
    if (input.blocks !== undefined) message.blocks = input.blocks;
    message.edited = { user: this.botUserId, ts: this.nextTs(message.channel) };
    return message;
  }

  /**
   * A user edits their own message (Slack lets nobody edit another's): the text changes, and
   * the subscribers get the edit (`edit`), which Slack sends as `message_changed` (sign.ts).
   */
  editAsUser(input: { channel: string; ts: string; user: string; text: string }): StoredSlackMessage {
    const message = this.find(this.channelId(input.channel), input.ts);
    if (message.user !== input.user || message.bot_id !== undefined)
      throw new SlackApiError('cant_update_message');
    this.announce(editedMessage(message, input.text, this.nextTs(message.channel)));
    return message;
  }

  postEphemeral(input: {
    channel: string;
    user: string;
    text: string;
    thread_ts?: string;
    blocks?: unknown[];
  }): EphemeralMessage {
    const channel = this.channelId(input.channel);
    if (!this.userList.has(input.user)) throw new SlackApiError('user_not_found');
    const ephemeral: EphemeralMessage = {
      channel,
      user: input.user,
      message_ts: this.nextTs(channel),
      text: input.text,
      ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
      ...(input.blocks === undefined ? {} : { blocks: input.blocks }),
    };
    this.ephemeralList.push(ephemeral);
    return ephemeral;
  }

  addReaction(input: { channel: string; timestamp: string; name: string; user?: string }): void {
    if (!input.name) throw new SlackApiError('invalid_name');
    const message = this.find(this.channelId(input.channel), input.timestamp);
    const user = input.user ?? this.botUserId;
    const users = message.reactions.get(input.name) ?? [];
    if (users.includes(user)) throw new SlackApiError('already_reacted');
    message.reactions.set(input.name, [...users, user]);
  }

  /**
   * Messages in ts order: the channel's top level (roots and broadcast replies) without
   * `thread_ts`, or the thread (root first, then replies) with it.
   */
  messages(query: { channel: string; thread_ts?: string }): SlackMessageView[] {
    const channel = this.channelId(query.channel);
    const selected =
      query.thread_ts === undefined ? this.topLevel(channel) : this.thread(channel, query.thread_ts);
    return selected.map(messageView);
  }

  channels(): SlackChannel[] {
    return [...this.channelList];
  }

  /** Step 1 of `files.uploadV2`: reserves a file id for the bytes posted next. */
  reserveUpload(input: { filename: string }): string {
    return this.uploads.reserve(input);
  }

  /** Step 2: the bytes, posted to the upload URL. */
  receiveUpload(fileId: string, content: string): void {
    this.uploads.receive(fileId, content);
  }

  /**
   * Step 3 (`files.completeUploadExternal`): shares the uploaded files in a channel or thread
   * as one bot message carrying them, with the initial comment as its text. Slack would also
   * keep unshared files private to the uploader; the fake only shares, so a channel is required.
   */
  completeUploads(input: {
    files: readonly { id: string; title?: string }[];
    channel: string;
    thread_ts?: string;
    initial_comment?: string;
  }): StoredSlackMessage {
    const channel = this.channelId(input.channel);
    const files = this.uploads.filesFor(input.files, channel, input.thread_ts);
    const message = this.post({
      channel,
      user: this.botUserId,
      bot_id: this.botId,
      text: input.initial_comment ?? '',
      ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
      broadcast: false,
      files,
    });
    this.uploads.markShared(files);
    return message;
  }

  /** Every file the bot shared, in upload order. */
  files(): SlackFile[] {
    return [...this.uploads.shared];
  }

  users(): SlackUser[] {
    return [...this.userList.values()];
  }

  /** The members of a user group (Slack answers `no_such_subteam` for an unknown one). */
  userGroupMembers(groupId: string): string[] {
    const members = this.userGroups[groupId];
    if (members === undefined) throw new SlackApiError('no_such_subteam');
    return [...members];
  }

  user(id: string): SlackUser {
    const user = this.userList.get(id);
    if (!user) throw new SlackApiError('user_not_found');
    return user;
  }

  ephemerals(): EphemeralMessage[] {
    return [...this.ephemeralList];
  }

  /** Web API calls answered so far, oldest first; only those of `method` if given. */
  apiCalls(method?: string): SlackApiCall[] {
    return this.callLog.filter((call) => method === undefined || call.method === method);
  }

  recordApiCall(call: SlackApiCall): void {
    this.callLog.push(call);
  }

  /**
   * The next `times` Web API calls of `method` answer HTTP 429 with `Retry-After`, as Slack
   * does when a method's rate tier is exhausted (a `rate_limited` fault, see faults.ts).
   */
  rateLimit(method: string, times = 1, retryAfterSeconds = 1): void {
    this.faults.add({ kind: 'rate_limited', method, count: times, retryAfterSeconds });
  }

  /** Resolves a channel id, a name or `#name` to the channel's id. */
  channelId(channel: string): string {
    if (this.history.has(channel)) return channel;
    const name = channel.replace(/^#/, '');
    const found = this.channelList.find((candidate) => candidate.name === name);
    if (!found) throw new SlackApiError('channel_not_found', channel);
    return found.id;
  }

  channel(channel: string): SlackChannel {
    const id = this.channelId(channel);
    return this.channelList.find((candidate) => candidate.id === id) ?? { id, name: id };
  }

  find(channel: string, ts: string): StoredSlackMessage {
    const message = this.history.get(channel)?.find((candidate) => candidate.ts === ts);
    if (!message) throw new SlackApiError('message_not_found', `${channel} ${ts}`);
    return message;
  }

  topLevel(channel: string): StoredSlackMessage[] {
    return (this.history.get(channel) ?? []).filter(
      (message) => message.thread_ts === undefined || message.broadcast,
    );
  }

  /** Root then replies; an unknown root is Slack's `thread_not_found`. */
  thread(channel: string, threadTs: string): StoredSlackMessage[] {
    const all = this.history.get(channel) ?? [];
    const root = all.find((message) => message.ts === threadTs && message.thread_ts === undefined);
    if (!root) throw new SlackApiError('thread_not_found', `${channel} ${threadTs}`);
    return [root, ...this.replies(channel, threadTs)];
  }

  replies(channel: string, threadTs: string): StoredSlackMessage[] {
    return (this.history.get(channel) ?? []).filter((message) => message.thread_ts === threadTs);
  }

  private post(input: {
    channel: string;
    user: string;
    bot_id: string | undefined;
    text: string;
    thread_ts?: string;
    blocks?: unknown[];
    broadcast: boolean;
    files?: SlackFile[];
    metadata?: SlackMessageMetadata;
  }): StoredSlackMessage {
    const channel = this.channelId(input.channel);
    let threadTs: string | undefined;
    if (input.thread_ts !== undefined) {
      const parent = this.history.get(channel)?.find((candidate) => candidate.ts === input.thread_ts);
      if (!parent) throw new SlackApiError('thread_not_found', `${channel} ${input.thread_ts}`);
      // A reply to a reply lands in the same thread, as in Slack.
      threadTs = parent.thread_ts ?? parent.ts;
    }
    const message: StoredSlackMessage = {
      channel,
      ts: this.nextTs(channel),
      thread_ts: threadTs,
      user: input.user,
      bot_id: input.bot_id,
      text: input.text,
      blocks: input.blocks,
      broadcast: threadTs !== undefined && input.broadcast,
      edited: undefined,
      reactions: new Map(),
      files: input.files,
      metadata: input.metadata,
    };
    this.history.get(channel)?.push(message);
    this.announce({
      channel,
      ts: message.ts,
      ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      user: message.user,
      ...(message.bot_id === undefined ? {} : { bot_id: message.bot_id }),
      ...(message.broadcast ? { subtype: 'thread_broadcast' } : {}),
      text: message.text,
      ...(message.blocks === undefined ? {} : { blocks: message.blocks }),
    });
    return message;
  }

  private announce(event: SlackMessageEvent): void {
    this.delivery.announce(event);
  }
  /** Slack ts: `seconds.micros`, unique and increasing within a channel. */
  private nextTs(channel: string): string {
    const last = this.lastMicros.get(channel) ?? 0;
    const micros = Math.max(Math.floor(this.clock() * 1000), last + 1);
    this.lastMicros.set(channel, micros);
    return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
  }
}
