import { createHmac, randomBytes } from 'node:crypto';
import type { SlackMessageEvent } from './fake-slack.ts';

/**
 * The sending side of Slack's Events API: request signing and `event_callback` bodies, so
 * the sandbox can deliver the fake workspace's messages to the real ingress exactly as
 * Slack would. Written independently of the ingress's verifier, so each checks the other.
 */

export interface SlackSignatureHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
}

/**
 * Slack's v0 signature: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` keyed by the
 * app's signing secret. `timestamp` is in seconds (default: now).
 */
export function signSlackRequest(input: {
  signingSecret: string;
  body: string | Buffer;
  timestamp?: number;
}): SlackSignatureHeaders {
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  const hmac = createHmac('sha256', input.signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(input.body);
  return { 'x-slack-signature': `v0=${hmac.digest('hex')}`, 'x-slack-request-timestamp': timestamp };
}

export interface EventCallbackOptions {
  teamId: string;
  apiAppId: string;
  /** @default a fresh `Ev…` id */
  eventId?: string;
  /** The bot's user id: fills `authorizations` and detects mentions for `buildEventCallbacks`. */
  botUserId?: string;
  /** The deprecated verification token Slack still sends. @default 'sandbox-verification-token' */
  token?: string;
}

export interface SlackEvent {
  type: 'message' | 'app_mention';
  channel: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text: string;
  ts: string;
  thread_ts?: string;
  channel_type?: 'channel' | 'im';
  blocks?: unknown[];
  event_ts: string;
  team?: string;
  /** On the `app_mention` Slack sends again for an edited message: who edited it, and when. */
  edited?: { user: string; ts: string };
}

/** The message inside a `message_changed` event (its new or its previous version). */
export interface ChangedMessage {
  type: 'message';
  user?: string;
  text: string;
  ts: string;
  thread_ts?: string;
  team: string;
  edited?: { user: string; ts: string };
}

/**
 * What Slack sends when a message is edited: hidden, with the edit's own ts at the top and
 * the message's ts inside `message` (the new version) and `previous_message`.
 */
export interface MessageChangedEvent {
  type: 'message';
  subtype: 'message_changed';
  hidden: true;
  channel: string;
  channel_type: 'channel' | 'im';
  ts: string;
  event_ts: string;
  message: ChangedMessage;
  previous_message: ChangedMessage;
}

export interface EventCallbackBody {
  token: string;
  team_id: string;
  api_app_id: string;
  event: SlackEvent | MessageChangedEvent;
  type: 'event_callback';
  event_id: string;
  event_time: number;
  authorizations?: Array<{
    enterprise_id: null;
    team_id: string;
    user_id: string;
    is_bot: true;
    is_enterprise_install: false;
  }>;
  is_ext_shared_channel: false;
  event_context: string;
}

/** The `event_callback` Slack sends for a new message (`event.type: 'message'`). */
function buildEventCallback(message: SlackMessageEvent, options: EventCallbackOptions): EventCallbackBody {
  return wrap(
    {
      type: 'message',
      ...eventFields(message, options.teamId),
      channel_type: channelType(message.channel),
    },
    options,
  );
}

/**
 * The `app_mention` callback Slack sends, with its own event id, when a user mentions the bot,
 * and again when a message that mentions it is edited (then with `edited`).
 */
export function buildAppMentionCallback(
  message: SlackMessageEvent,
  options: EventCallbackOptions,
): EventCallbackBody {
  const { edit } = message;
  const edited =
    edit === undefined ? {} : { event_ts: edit.editedTs, edited: { user: edit.editor, ts: edit.editedTs } };
  return wrap({ type: 'app_mention', ...eventFields(message, options.teamId), ...edited }, options);
}

/**
 * The `message_changed` callback Slack sends when a user edits a message (Slack's reference:
 * docs.slack.dev/reference/events/message/message_changed): `hidden`, no `user` of its own,
 * the edit's ts at the top, the message's new version (with `edited`) and its previous one.
 */
export function buildMessageChangedCallback(
  message: SlackMessageEvent & { edit: NonNullable<SlackMessageEvent['edit']> },
  options: EventCallbackOptions,
): EventCallbackBody {
  const { edit } = message;
  const version = (text: string): ChangedMessage => ({
    type: 'message',
    ...(message.user === undefined ? {} : { user: message.user }),
    text,
    ts: message.ts,
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    team: options.teamId,
  });
  return wrap(
    {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: message.channel,
      channel_type: channelType(message.channel),
      ts: edit.editedTs,
      event_ts: edit.editedTs,
      message: { ...version(message.text), edited: { user: edit.editor, ts: edit.editedTs } },
      previous_message: version(edit.previousText),
    },
    options,
  );
}

/**
 * Every callback Slack sends for one message: the `message` event and, when the text
 * mentions `<@botUserId>` and a user (not a bot) wrote it, an `app_mention` event too.
 * `eventId` names the first; the mention gets a fresh id. For an edit, `message_changed`,
 * and the `app_mention` again (with `edited`) when the edited text mentions the bot.
 */
export function buildEventCallbacks(
  message: SlackMessageEvent,
  options: EventCallbackOptions,
): EventCallbackBody[] {
  const { edit } = message;
  const callbacks = [
    edit === undefined
      ? buildEventCallback(message, options)
      : buildMessageChangedCallback({ ...message, edit }, options),
  ];
  if (options.botUserId && message.bot_id === undefined && message.text.includes(`<@${options.botUserId}>`)) {
    const { eventId: _first, ...rest } = options;
    callbacks.push(buildAppMentionCallback(message, rest));
  }
  return callbacks;
}

/** A direct message's channel id begins with D (Slack's `im`); every other is a channel here. */
function channelType(channel: string): 'channel' | 'im' {
  return channel.startsWith('D') ? 'im' : 'channel';
}

export function newEventId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return `Ev${[...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

function eventFields(message: SlackMessageEvent, teamId: string) {
  return {
    channel: message.channel,
    ...(message.user === undefined ? {} : { user: message.user }),
    ...(message.bot_id === undefined ? {} : { bot_id: message.bot_id }),
    ...(message.subtype === undefined ? {} : { subtype: message.subtype }),
    text: message.text,
    ts: message.ts,
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    ...(message.blocks === undefined ? {} : { blocks: message.blocks }),
    team: teamId,
    event_ts: message.ts,
  };
}

function wrap(event: SlackEvent | MessageChangedEvent, options: EventCallbackOptions): EventCallbackBody {
  return {
    token: options.token ?? 'sandbox-verification-token',
    team_id: options.teamId,
    api_app_id: options.apiAppId,
    event,
    type: 'event_callback',
    event_id: options.eventId ?? newEventId(),
    event_time: Math.floor(Number(event.ts)),
    ...(options.botUserId === undefined
      ? {}
      : {
          authorizations: [
            {
              enterprise_id: null,
              team_id: options.teamId,
              user_id: options.botUserId,
              is_bot: true as const,
              is_enterprise_install: false as const,
            },
          ],
        }),
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(JSON.stringify({ et: event.type, tid: options.teamId, aid: options.apiAppId, cid: event.channel })).toString('base64url')}`,
  };
}

/** Posts a form body to the ingress at `url`, signed as Slack signs it (a command, an interaction). */
export function postSignedForm(options: {
  url: string;
  signingSecret: string;
  form: string;
}): Promise<Response> {
  return fetch(`${options.url}/slack/events`, {
    method: 'POST',
    body: options.form,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...signSlackRequest({ signingSecret: options.signingSecret, body: options.form }),
    },
  });
}
