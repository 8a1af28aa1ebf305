import { type InboxEnvelope, MAX_ENVELOPE_BYTES, serializeEnvelope } from '../kernel/inbox.ts';
import type { SlashCommandUsage } from '../kernel/slash-command-help.ts';
import {
  type Admission,
  errorSummary,
  type IngressLogger,
  type IngressResponse,
  refusal,
  respond,
} from './admission.ts';
import { isEventBridgeEvent } from './alert-payloads.ts';
import { admitSlackRequest } from './slack-door.ts';
import { admitAlarmEvent, admitGithubRequest, admitPagerdutyRequest } from './webhook-doors.ts';

export type { IngressLogger, IngressResponse } from './admission.ts';

/** The parts of a Lambda Function URL event (`APIGatewayProxyEventV2`) the ingress reads. */
interface IngressEvent {
  rawPath?: string | undefined;
  headers?: Record<string, string | undefined> | null | undefined;
  body?: string | null | undefined;
  isBase64Encoded?: boolean | undefined;
  requestContext?:
    | { http?: { method?: string | undefined; path?: string | undefined } | undefined }
    | undefined;
}

/** Where GitHub and PagerDuty deliver; every other path is Slack's (its request URL is the root). */
export const GITHUB_EVENTS_PATH = '/github/events';
export const PAGERDUTY_EVENTS_PATH = '/pagerduty/events';

/** GitHub keeps deliveries for redelivery three days; an event older than that is a replay. */
export const DEFAULT_WEBHOOK_MAX_AGE_SECONDS = 3 * 24 * 3600;

export interface IngressDependencies {
  /** The Slack signing secret (Secrets Manager in AWS, cached; an env override locally). */
  getSigningSecret: () => Promise<string>;
  /** The GitHub webhook secret; absent: `/github/events` answers 404. */
  getGithubWebhookSecret?: (() => Promise<string>) | undefined;
  /** The PagerDuty V3 webhook signing secret; absent: `/pagerduty/events` answers 404. */
  getPagerdutyWebhookSecret?: (() => Promise<string>) | undefined;
  /**
   * Puts the envelope on the inbox. Rejects with `InboxMessageRejectedError` (by name) when
   * the message itself is refused, which is answered 4xx; any other rejection is answered 500.
   */
  enqueue: (envelope: InboxEnvelope) => Promise<void>;
  /** Milliseconds since the epoch. */
  now: () => number;
  logger: IngressLogger;
  /** The bot's own Slack user id, so its own messages are not routed back to it. */
  botUserId: string | undefined;
  /** The slash commands some workflow handles; undefined passes every command on. */
  slashCommands?: readonly string[] | undefined;
  /**
   * What each slash command takes, so that `help`, an empty text or an unusable one is answered
   * at once with the command's usage instead of starting anything.
   * @default - none: every command is passed on as typed
   */
  slashCommandUsage?: readonly SlashCommandUsage[] | undefined;
  /** @default DEFAULT_WEBHOOK_MAX_AGE_SECONDS */
  webhookMaxAgeSeconds?: number;
}

export type IngressHandler = (event: IngressEvent | Record<string, unknown>) => Promise<IngressResponse>;

/**
 * The door of the system: verify, parse, enqueue, answer, all without calling Slack or a
 * model, well inside Slack's three-second budget. Slack at any path, GitHub at
 * `/github/events`, PagerDuty at `/pagerduty/events` (Function URL requests), and CloudWatch
 * alarm state changes from the EventBridge rule (invoked directly). A deterministic refusal
 * is 4xx with `x-slack-no-retry`; 500 only when the request was good and a secret or the
 * inbox failed us; for EventBridge that is a throw, so Lambda's async retries take it.
 */
export function createIngressHandler(deps: IngressDependencies): IngressHandler {
  const { logger } = deps;
  const maxAgeSeconds = deps.webhookMaxAgeSeconds ?? DEFAULT_WEBHOOK_MAX_AGE_SECONDS;

  return async (event) => {
    if (isEventBridgeEvent(event)) {
      const response = await settle(
        deps,
        'eventbridge',
        admitAlarmEvent(event, { nowMilliseconds: deps.now(), maxAgeSeconds }),
      );
      if (response.statusCode >= 500)
        throw new Error(`could not enqueue EventBridge event ${String(event.id)}`);
      return response;
    }
    const request = event as IngressEvent;
    const method = request.requestContext?.http?.method;
    if (method !== undefined && method.toUpperCase() !== 'POST') {
      return {
        statusCode: 405,
        headers: { 'content-type': 'text/plain; charset=utf-8', allow: 'POST' },
        body: 'Method Not Allowed',
      };
    }
    const headers = lowerCaseHeaders(request.headers);
    const rawBody = request.body ?? '';
    // Signatures cover the bytes as sent, so base64 is undone before anything else.
    const body: Uint8Array | string = request.isBase64Encoded ? Buffer.from(rawBody, 'base64') : rawBody;
    const path = request.rawPath ?? request.requestContext?.http?.path ?? '/';
    const nowMilliseconds = deps.now();

    switch (path) {
      case GITHUB_EVENTS_PATH: {
        if (deps.getGithubWebhookSecret === undefined) return respond(404, 'Not Found');
        const secret = await readSecret(deps.getGithubWebhookSecret, 'GitHub webhook', logger);
        if (secret === undefined) return respond(500, 'Internal Server Error');
        return settle(
          deps,
          'github',
          await admitGithubRequest({ secret, headers, body, nowMilliseconds, maxAgeSeconds }),
        );
      }
      case PAGERDUTY_EVENTS_PATH: {
        if (deps.getPagerdutyWebhookSecret === undefined) return respond(404, 'Not Found');
        const secret = await readSecret(deps.getPagerdutyWebhookSecret, 'PagerDuty webhook', logger);
        if (secret === undefined) return respond(500, 'Internal Server Error');
        return settle(
          deps,
          'pagerduty',
          admitPagerdutyRequest({ secret, headers, body, nowMilliseconds, maxAgeSeconds }),
        );
      }
      default: {
        const signingSecret = await readSecret(deps.getSigningSecret, 'Slack signing', logger);
        if (signingSecret === undefined) return respond(500, 'Internal Server Error');
        return settle(
          deps,
          'slack',
          admitSlackRequest({
            signingSecret,
            headers,
            body,
            nowMilliseconds,
            botUserId: deps.botUserId,
            slashCommands: deps.slashCommands,
            slashCommandUsage: deps.slashCommandUsage,
          }),
        );
      }
    }
  };
}

async function readSecret(
  get: () => Promise<string>,
  what: string,
  logger: IngressLogger,
): Promise<string | undefined> {
  try {
    return await get();
  } catch (error) {
    logger.error(`cannot read the ${what} secret`, { error: errorSummary(error) });
    return undefined;
  }
}

/** Acts on a door's decision: answer, refuse, or enqueue and acknowledge. */
async function settle(
  deps: IngressDependencies,
  source: string,
  admission: Admission,
): Promise<IngressResponse> {
  const { logger } = deps;
  switch (admission.type) {
    case 'unavailable':
      logger.error(admission.reason, { source, error: errorSummary(admission.error) });
      return respond(500, 'Internal Server Error');
    case 'refuse':
      if (admission.status === 401)
        logger.warn('rejected an unverified request', { source, reason: admission.reason });
      else logger.warn('rejected a malformed request', { source, reason: admission.reason });
      return refusal(admission.status, admission.reason);
    case 'answer':
      if (admission.ignored) logger.info('ignored a request', { source, ...admission.ignored });
      return admission.response;
    case 'enqueue':
      return enqueue(deps, source, admission);
  }
}

async function enqueue(
  deps: IngressDependencies,
  source: string,
  admission: Extract<Admission, { type: 'enqueue' }>,
): Promise<IngressResponse> {
  const { envelope } = admission;
  const ids = {
    source,
    kind: envelope.kind,
    eventId: envelope.eventId,
    ...('channel' in envelope ? { channel: envelope.channel } : {}),
    ts: envelope.ts,
  };
  if (admission.note) deps.logger.info('a retried delivery', { ...ids, ...admission.note });
  // Beyond what one DynamoDB item holds, the message could not be stored by the Router either.
  const bytes = Buffer.byteLength(serializeEnvelope(envelope), 'utf8');
  if (bytes > MAX_ENVELOPE_BYTES) {
    const reason = `the message is ${bytes} bytes; at most ${MAX_ENVELOPE_BYTES} can be kept`;
    deps.logger.warn('rejected a request too large to keep', { ...ids, bytes });
    return refusal(413, reason);
  }
  try {
    await deps.enqueue(envelope);
  } catch (error) {
    if (error instanceof Error && error.name === 'InboxMessageRejectedError') {
      // SQS refuses these bytes and always will: a retry would only be refused again.
      deps.logger.error('the inbox refused the message', { ...ids, error: errorSummary(error) });
      return refusal(400, 'the message cannot be queued');
    }
    deps.logger.error('could not enqueue; the sender will retry', { ...ids, error: errorSummary(error) });
    return respond(500, 'Internal Server Error');
  }
  deps.logger.info('enqueued', ids);
  return admission.accepted;
}

/** Function URLs lower-case header names already; other callers (the sandbox, tests) may not. */
function lowerCaseHeaders(headers: IngressEvent['headers']): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string') lower[name.toLowerCase()] = value;
  }
  return lower;
}
