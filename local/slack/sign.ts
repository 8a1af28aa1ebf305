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
}

export interface EventCallbackBody {
  token: string;
  team_id: string;
  api_app_id: string;
  event: SlackEvent;
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
export function buildEventCallback(
  message: SlackMessageEvent,
  options: EventCallbackOptions,
): EventCallbackBody {
  return wrap(
    {
      type: 'message',
      ...eventFields(message, options.teamId),
      // A direct message's channel id begins with D (Slack's `im`); every other is a channel here.
      channel_type: message.channel.startsWith('D') ? 'im' : 'channel',
    },
    options,
  );
}

/** The `app_mention` callback Slack sends, with its own event id, when a user mentions the bot. */
export function buildAppMentionCallback(
  message: SlackMessageEvent,
  options: EventCallbackOptions,
): EventCallbackBody {
  return wrap({ type: 'app_mention', ...eventFields(message, options.teamId) }, options);
}

/**
 * Every callback Slack sends for one message: the `message` event and, when the text
 * mentions `<@botUserId>` and a user (not a bot) wrote it, an `app_mention` event too.
 * `eventId` names the first; the mention gets a fresh id.
 */
export function buildEventCallbacks(
  message: SlackMessageEvent,
  options: EventCallbackOptions,
): EventCallbackBody[] {
  const callbacks = [buildEventCallback(message, options)];
  if (options.botUserId && message.bot_id === undefined && message.text.includes(`<@${options.botUserId}>`)) {
    const { eventId: _first, ...rest } = options;
    callbacks.push(buildAppMentionCallback(message, rest));
  }
  return callbacks;
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

function wrap(event: SlackEvent, options: EventCallbackOptions): EventCallbackBody {
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
