import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { InboxEnvelope } from '../kernel/inbox.ts';
import {
  BlockActions,
  EventCallback,
  EventsApiBody,
  InteractionPayload,
  MessageEvent,
  MessageSender,
  SlashCommandForm,
  UrlVerification,
} from './slack-payloads.ts';
import {
  answerText,
  parseSurfaceAction,
  parseSurfaceEvent,
  parseViewSubmission,
  type SurfaceParse,
} from './surface-payloads.ts';

/** Why a verified request is answered 200 and dropped. Logged, never enqueued. */
export const IgnoreReason = {
  ownMessage: 'own_message',
  botMessage: 'bot_message',
  messageSubtype: 'message_subtype',
  /** An edit of a message already posted: never a new act of its sender. */
  editedMessage: 'edited_message',
  eventType: 'event_type',
  envelopeType: 'envelope_type',
  payloadType: 'payload_type',
  actionOutsideMessage: 'action_outside_message',
  sslCheck: 'ssl_check',
  /** An app-surface event or submission that needs nothing (lambdas/ingress/surface-payloads.ts). */
  surface: 'surface',
} as const;
export type IgnoreReason = (typeof IgnoreReason)[keyof typeof IgnoreReason];

export type ParsedSlackRequest =
  | { type: 'url_verification'; challenge: string }
  | { type: 'enqueue'; envelope: InboxEnvelope }
  | { type: 'ignore'; reason: IgnoreReason; detail?: string | undefined }
  | { type: 'invalid'; reason: string };

export interface SlackRequest {
  /** The body as UTF-8 text, after the signature over its bytes was verified. */
  body: string;
  /** The `content-type` header, parameters included (`; charset=utf-8`). */
  contentType: string | undefined;
  /** The verified `X-Slack-Request-Timestamp` (seconds, digits only). */
  requestTimestamp: string;
  /** When the ingress accepted the request (ISO 8601). */
  receivedAt: string;
  /** The bot's own user id; its messages are ignored and `<@id>` counts as a mention. */
  botUserId: string | undefined;
}

/**
 * Messages that carry something a person said. Everything else (`message_changed`,
 * `message_deleted`, `channel_join`, ...) is housekeeping the kernel does not route on. An
 * edit (`message_changed`, or the `app_mention` Slack sends again for an edited message, with
 * `edited`) is never a new message: it could otherwise turn an old message into a fix request
 * or an approval its sender never posted as such, or add a mention to one nobody answered.
 */
const ROUTED_SUBTYPES: ReadonlySet<string | undefined> = new Set([
  undefined,
  'thread_broadcast',
  'file_share',
]);

/**
 * Reads a verified Slack request (Events API JSON, a slash command form, or an
 * interactivity `payload` form) into what the ingress does with it. Pure: no I/O, no clock.
 */
export function parseSlackRequest(request: SlackRequest): ParsedSlackRequest {
  const mediaType = request.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  switch (mediaType) {
    case 'application/json':
      return parseEventsApi(request);
    case 'application/x-www-form-urlencoded':
      return parseForm(request);
    default:
      return invalid(`unsupported content-type ${JSON.stringify(mediaType ?? null)}`);
  }
}

function parseEventsApi(request: SlackRequest): ParsedSlackRequest {
  const json = parseJson(request.body);
  if (!json.ok) return invalid('Events API body is not valid JSON');
  const body = EventsApiBody.safeParse(json.value);
  if (!body.success) return invalidShape('Events API body', body.error);

  switch (body.data.type) {
    case 'url_verification': {
      const verification = UrlVerification.safeParse(json.value);
      if (!verification.success) return invalidShape('url_verification', verification.error);
      return { type: 'url_verification', challenge: verification.data.challenge };
    }
    case 'event_callback': {
      const callback = EventCallback.safeParse(json.value);
      if (!callback.success) return invalidShape('event_callback', callback.error);
      return parseEventCallback(callback.data, request);
    }
    default:
      return { type: 'ignore', reason: IgnoreReason.envelopeType, detail: body.data.type };
  }
}

function parseEventCallback(callback: EventCallback, request: SlackRequest): ParsedSlackRequest {
  const eventType = callback.event.type;
  const surface = parseSurfaceEvent(callback.event, callback.event_id, {
    receivedAt: request.receivedAt,
    teamId: callback.team_id,
  });
  if (surface !== undefined) return fromSurface(surface);
  if (eventType !== 'message' && eventType !== 'app_mention') {
    return { type: 'ignore', reason: IgnoreReason.eventType, detail: eventType };
  }

  const sender = MessageSender.safeParse(callback.event);
  if (!sender.success) return invalidShape(eventType, sender.error);
  const { subtype, bot_id: botId, user } = sender.data;
  // Our own posts come back to us as message events; answering them would loop forever.
  if (request.botUserId !== undefined && user === request.botUserId) {
    return { type: 'ignore', reason: IgnoreReason.ownMessage };
  }
  if (botId || subtype === 'bot_message') {
    return { type: 'ignore', reason: IgnoreReason.botMessage, detail: botId || 'bot_message' };
  }
  if (subtype === 'message_changed' || sender.data.edited !== undefined) {
    return { type: 'ignore', reason: IgnoreReason.editedMessage, detail: subtype ?? eventType };
  }
  if (!ROUTED_SUBTYPES.has(subtype)) {
    return { type: 'ignore', reason: IgnoreReason.messageSubtype, detail: subtype ?? '' };
  }

  const event = MessageEvent.safeParse(callback.event);
  if (!event.success) return invalidShape(eventType, event.error);
  const { channel, text, ts } = event.data;
  const threadTs = event.data.thread_ts;
  const teamId = callback.team_id ?? event.data.team;
  return envelope({
    kind: 'message',
    eventId: callback.event_id,
    ...(teamId === undefined ? {} : { teamId }),
    channel,
    user: event.data.user,
    receivedAt: request.receivedAt,
    text,
    ts,
    ...(threadTs === undefined ? {} : { threadTs }),
    // A direct message (the assistant thread among them) is addressed to the bot by itself.
    mentionsBot:
      eventType === 'app_mention' ||
      callback.event.channel_type === 'im' ||
      mentions(text, request.botUserId),
  });
}

function parseForm(request: SlackRequest): ParsedSlackRequest {
  const form = new URLSearchParams(request.body);
  const payload = form.get('payload');
  if (payload !== null) return parseInteraction(payload, request);
  if (form.has('command')) return parseSlashCommand(form, request);
  if (form.has('ssl_check')) return { type: 'ignore', reason: IgnoreReason.sslCheck };
  return invalid('form body has neither `command` nor `payload`');
}

function parseSlashCommand(form: URLSearchParams, request: SlackRequest): ParsedSlackRequest {
  const command = SlashCommandForm.safeParse(Object.fromEntries(form));
  if (!command.success) return invalidShape('slash command', command.error);
  const { team_id: teamId, response_url: responseUrl, trigger_id: triggerId } = command.data;
  return envelope({
    kind: 'slash_command',
    // Slack does not retry slash commands, and each invocation has a fresh trigger id.
    eventId: triggerId,
    ...(teamId ? { teamId } : {}),
    channel: command.data.channel_id,
    user: command.data.user_id,
    receivedAt: request.receivedAt,
    command: command.data.command,
    text: command.data.text,
    ts: syntheticTs(request.requestTimestamp, triggerId),
    ...(responseUrl ? { responseUrl } : {}),
  });
}

function parseInteraction(payload: string, request: SlackRequest): ParsedSlackRequest {
  const json = parseJson(payload);
  if (!json.ok) return invalid('interactivity payload is not valid JSON');
  const interaction = InteractionPayload.safeParse(json.value);
  if (!interaction.success) return invalidShape('interactivity payload', interaction.error);
  if (interaction.data.type === 'view_submission') {
    return fromSurface(
      parseViewSubmission(json.value, {
        receivedAt: request.receivedAt,
        syntheticTs: (id) => syntheticTs(request.requestTimestamp, id),
      }),
    );
  }
  if (interaction.data.type !== 'block_actions') {
    return { type: 'ignore', reason: IgnoreReason.payloadType, detail: interaction.data.type };
  }
  const actions = BlockActions.safeParse(json.value);
  if (!actions.success) return invalidShape('block_actions', actions.error);
  return parseBlockActions(actions.data, request);
}

/**
 * A button or menu in a message. Slack sends one action per click; should a payload carry
 * several, only the first is routed: they would share one trigger id, and so one
 * deduplication id, and SQS would keep only the first of them anyway.
 */
function parseBlockActions(payload: BlockActions, request: SlackRequest): ParsedSlackRequest {
  const { container } = payload;
  const [first] = payload.actions;
  const surface =
    first === undefined
      ? undefined
      : parseSurfaceAction({
          triggerId: payload.trigger_id,
          user: payload.user.id,
          teamId: payload.team?.id,
          container,
          channel: payload.channel?.id ?? container.channel_id,
          messageTs: container.message_ts,
          threadTs: container.thread_ts ?? payload.message?.thread_ts,
          messageText: answerText(payload.message?.blocks, payload.message?.text),
          action: first,
          receivedAt: request.receivedAt,
        });
  if (surface !== undefined) return fromSurface(surface);
  // Buttons in modals and App Home belong to no conversation thread.
  if (container.type === 'view') return { type: 'ignore', reason: IgnoreReason.actionOutsideMessage };
  const channel = payload.channel?.id ?? container.channel_id;
  const messageTs = container.message_ts;
  if (channel === undefined || messageTs === undefined) {
    return invalid('block_actions: container has no channel or message_ts');
  }
  const [action] = payload.actions;
  if (action === undefined) return invalid('block_actions: no actions');
  const threadTs = container.thread_ts ?? payload.message?.thread_ts;
  const value = action.value ?? action.selected_option?.value;
  const teamId = payload.team?.id;
  return envelope({
    kind: 'action',
    eventId: payload.trigger_id ?? `${channel}:${messageTs}:${action.action_ts}`,
    ...(teamId === undefined ? {} : { teamId }),
    channel,
    user: payload.user.id,
    receivedAt: request.receivedAt,
    actionId: action.action_id,
    ...(value === undefined ? {} : { value }),
    messageTs,
    ...(threadTs === undefined ? {} : { threadTs }),
    ts: action.action_ts,
  });
}

/**
 * A slash command has no ts of its own, yet the kernel stores it as a conversation's first
 * message. Seconds from the signed timestamp keep it in time order; six digits from a hash
 * of the trigger id keep two commands in the same second apart, and a re-delivery equal.
 */
function syntheticTs(requestTimestamp: string, triggerId: string): string {
  const hash = createHash('sha256').update(triggerId).digest();
  const micros = hash.readUInt32BE(0) % 1_000_000;
  return `${requestTimestamp}.${micros.toString().padStart(6, '0')}`;
}

function mentions(text: string, botUserId: string | undefined): boolean {
  if (botUserId === undefined) return false;
  return text.includes(`<@${botUserId}>`) || text.includes(`<@${botUserId}|`);
}

/** A surface's reading as the ingress acts on it. */
function fromSurface(surface: SurfaceParse): ParsedSlackRequest {
  switch (surface.type) {
    case 'record':
      return envelope(surface.record as InboxEnvelope);
    case 'ignore':
      return { type: 'ignore', reason: IgnoreReason.surface, detail: surface.detail };
    case 'invalid':
      return invalid(surface.reason);
  }
}

/** The last gate: nothing reaches the inbox that the Router's schema would refuse. */
function envelope(candidate: InboxEnvelope): ParsedSlackRequest {
  const checked = InboxEnvelope.safeParse(candidate);
  if (!checked.success) return invalidShape(`${candidate.kind} envelope`, checked.error);
  return { type: 'enqueue', envelope: checked.data };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function invalid(reason: string): ParsedSlackRequest {
  return { type: 'invalid', reason };
}

/** Field paths and zod's messages only: a reason is logged, and must not echo content. */
function invalidShape(what: string, error: z.ZodError): ParsedSlackRequest {
  const issues = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return invalid(`${what}: ${issues}`);
}
