/** The fake Slack workspace's records and options (see fake-slack.ts). */

export interface SlackChannel {
  id: string;
  name: string;
}

export interface SlackUser {
  id: string;
  name: string;
  realName?: string;
}

/** What `onMessage` subscribers receive for each new message. */
export interface SlackMessageEvent {
  channel: string;
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  /** `thread_broadcast` for a reply also sent to the channel. */
  subtype?: string;
  text: string;
  blocks?: unknown[];
  /** Set when a user edited the message (its text is the new one): Slack sends `message_changed`. */
  edit?: { previousText: string; editor: string; editedTs: string };
}

/** A message as `messages()` lists it. */
export interface SlackMessageView {
  ts: string;
  thread_ts?: string;
  user?: string;
  bot?: true;
  text: string;
  blocks?: unknown[];
  /** The files shared with the message (`files.uploadV2`). */
  files?: SlackFile[];
}

/** A file the bot uploaded with `files.uploadV2`, as the fake keeps it. */
export interface SlackFile {
  id: string;
  title: string;
  filename: string;
  /** The uploaded bytes as UTF-8 text (the bot uploads text: Markdown). */
  content: string;
  channel: string;
  /** The thread it was shared in, if any. */
  thread_ts?: string;
}

export interface StoredSlackMessage {
  channel: string;
  ts: string;
  /** Set on replies only: the root's ts. */
  thread_ts: string | undefined;
  user: string;
  bot_id: string | undefined;
  text: string;
  blocks: unknown[] | undefined;
  broadcast: boolean;
  edited: { user: string; ts: string } | undefined;
  /** Reaction name -> users, in the order they reacted. */
  reactions: Map<string, string[]>;
  /** Files shared with the message. */
  files: SlackFile[] | undefined;
  /** Message metadata the bot posted with (`metadata` of `chat.postMessage`). */
  metadata: SlackMessageMetadata | undefined;
}

/** Slack's message metadata: an event type and its payload, returned with `include_all_metadata`. */
export interface SlackMessageMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  message_ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
}

/** One Web API call as the fake answered it, for tests to assert what the bot did. */
export interface SlackApiCall {
  method: string;
  /** The arguments as received (form fields are strings), without the token. */
  args: Record<string, unknown>;
  outcome: 'ok' | 'rate_limited' | { error: string };
}

export interface FakeSlackOptions {
  /** The only token the Web API accepts. */
  botToken: string;
  /** @default 'U_BOT' */
  botUserId?: string;
  /** @default 'B_BOT' */
  botId?: string;
  /** @default 'A_BOT' */
  appId?: string;
  /** @default 'agent' */
  botName?: string;
  /** @default 'T_SANDBOX' */
  teamId?: string;
  /** @default 'sandbox' */
  teamName?: string;
  channels?: SlackChannel[];
  users?: SlackUser[];
  /** User groups: group id -> member user ids (`usergroups.users.list`). @default {} */
  userGroups?: Record<string, string[]>;
  /** Clock for message timestamps (epoch ms). @default Date.now */
  now?: () => number;
  /** Called when a subscriber throws or rejects. @default console.error */
  onListenerError?: (error: unknown, event: SlackMessageEvent) => void;
}
