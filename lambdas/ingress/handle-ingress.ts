import type { InboxEnvelope } from '../kernel/inbox.ts';
import { InvalidSlackSignatureError } from './errors.ts';
import { parseSlackRequest } from './parse-slack-request.ts';
import { verifySlackRequest } from './verify-slack-request.ts';

/** The parts of a Lambda Function URL event (`APIGatewayProxyEventV2`) the ingress reads. */
export interface IngressEvent {
  headers?: Record<string, string | undefined> | null | undefined;
  body?: string | null | undefined;
  isBase64Encoded?: boolean | undefined;
  requestContext?: { http?: { method?: string | undefined } | undefined } | undefined;
}

/** A structured Function URL result (`APIGatewayProxyStructuredResultV2`). */
export interface IngressResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** What the ingress needs of a logger; Powertools' `Logger` fits it. */
export interface IngressLogger {
  debug(message: string, ...attributes: Record<string, unknown>[]): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

export interface IngressDependencies {
  /** The Slack signing secret (Secrets Manager in AWS, cached; an env override locally). */
  getSigningSecret: () => Promise<string>;
  /** Puts the envelope on the inbox; rejects when it could not (the request then gets a 500). */
  enqueue: (envelope: InboxEnvelope) => Promise<void>;
  /** Milliseconds since the epoch. */
  now: () => number;
  logger: IngressLogger;
  /** The bot's own Slack user id, so its own messages are not routed back to it. */
  botUserId: string | undefined;
}

export type IngressHandler = (event: IngressEvent) => Promise<IngressResponse>;

const JSON_HEADERS = { 'content-type': 'application/json' };
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=utf-8' };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What Slack sees once an envelope is on the inbox: an empty 200, or a slash command's ack. */
function accepted(envelope: InboxEnvelope): IngressResponse {
  switch (envelope.kind) {
    case 'message':
    case 'action':
      return respond(200, '');
    case 'slash_command':
      // Ephemeral: only the person who typed the command sees the ack; the work goes on behind the inbox.
      return respondJson(200, {
        response_type: 'ephemeral',
        text: `Got it: ${envelope.command} is on its way.`,
      });
  }
}

/**
 * The Slack door: verify, parse, enqueue, answer, all without calling Slack or a model,
 * well inside Slack's three-second budget. Status codes say whose fault a refusal is:
 * 401 unsigned or stale, 400 signed but unreadable (with `x-slack-no-retry`, since a retry
 * would carry the same bytes), 500 only when the request was good and the inbox or the
 * secret store failed us, so that Slack retries it.
 */
export function createIngressHandler(deps: IngressDependencies): IngressHandler {
  const { logger } = deps;

  return async (event) => {
    const method = event.requestContext?.http?.method;
    if (method !== undefined && method.toUpperCase() !== 'POST') {
      return { statusCode: 405, headers: { ...TEXT_HEADERS, allow: 'POST' }, body: 'Method Not Allowed' };
    }
    const headers = lowerCaseHeaders(event.headers);
    const rawBody = event.body ?? '';
    // The signature covers the bytes Slack sent, so base64 is undone before anything else.
    const bodyBytes: Uint8Array | string = event.isBase64Encoded ? Buffer.from(rawBody, 'base64') : rawBody;

    let signingSecret: string;
    try {
      signingSecret = await deps.getSigningSecret();
    } catch (error) {
      logger.error('cannot read the Slack signing secret', { error: errorSummary(error) });
      return respond(500, 'Internal Server Error');
    }

    const nowMilliseconds = deps.now();
    try {
      verifySlackRequest({ signingSecret, headers, body: bodyBytes, nowMilliseconds });
    } catch (error) {
      if (!(error instanceof InvalidSlackSignatureError)) {
        logger.error('cannot verify Slack requests', { error: errorSummary(error) });
        return respond(500, 'Internal Server Error');
      }
      logger.warn('rejected an unverified request', { reason: error.reason });
      return respond(401, 'Unauthorized');
    }
    // Verified: the timestamp header is present and all digits.
    const requestTimestamp = headers['x-slack-request-timestamp'] ?? '';

    let body: string;
    try {
      body = typeof bodyBytes === 'string' ? bodyBytes : utf8.decode(bodyBytes);
    } catch {
      return badRequest(logger, 'body is not valid UTF-8');
    }

    const parsed = parseSlackRequest({
      body,
      contentType: headers['content-type'],
      requestTimestamp,
      receivedAt: new Date(nowMilliseconds).toISOString(),
      botUserId: deps.botUserId,
    });

    switch (parsed.type) {
      case 'url_verification':
        logger.info('answered url_verification');
        return respondJson(200, { challenge: parsed.challenge });
      case 'ignore':
        logger.info('ignored a Slack request', { reason: parsed.reason, detail: parsed.detail });
        return respond(200, '');
      case 'invalid':
        return badRequest(logger, parsed.reason);
      case 'enqueue':
        return enqueue(deps, parsed.envelope, headers);
    }
  };
}

async function enqueue(
  deps: IngressDependencies,
  envelope: InboxEnvelope,
  headers: Record<string, string>,
): Promise<IngressResponse> {
  const ids = { kind: envelope.kind, eventId: envelope.eventId, channel: envelope.channel, ts: envelope.ts };
  const retryNum = headers['x-slack-retry-num'];
  if (retryNum !== undefined) {
    // A retry is enqueued like the first delivery: the same event id is the same SQS
    // deduplication id, so SQS drops it if the first made it; if not, this one counts.
    deps.logger.info('Slack retried an event', {
      ...ids,
      retryNum,
      retryReason: headers['x-slack-retry-reason'],
    });
  }
  try {
    await deps.enqueue(envelope);
  } catch (error) {
    deps.logger.error('could not enqueue; Slack will retry', { ...ids, error: errorSummary(error) });
    return respond(500, 'Internal Server Error');
  }
  deps.logger.info('enqueued', ids);
  return accepted(envelope);
}

function badRequest(logger: IngressLogger, reason: string): IngressResponse {
  logger.warn('rejected a malformed Slack request', { reason });
  return {
    statusCode: 400,
    headers: { ...TEXT_HEADERS, 'x-slack-no-retry': '1' },
    body: `Bad Request: ${reason}`,
  };
}

/** Function URLs lower-case header names already; other callers (the sandbox, tests) may not. */
function lowerCaseHeaders(headers: IngressEvent['headers']): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string') lower[name.toLowerCase()] = value;
  }
  return lower;
}

/** Name and message only: SDK errors can carry request metadata we do not want in logs. */
function errorSummary(error: unknown): { name: string; message: string; cause?: string } {
  if (!(error instanceof Error)) return { name: 'NonError', message: String(error) };
  const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
  return { name: error.name, message: error.message, ...(cause === undefined ? {} : { cause }) };
}

function respond(statusCode: number, body: string): IngressResponse {
  return { statusCode, headers: TEXT_HEADERS, body };
}

function respondJson(statusCode: number, body: unknown): IngressResponse {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}
