import type { InboxEnvelope } from '../kernel/inbox.ts';

/**
 * What a door (Slack, GitHub, PagerDuty, EventBridge) decided about one request, before the
 * ingress enqueues anything. Status codes say whose fault a refusal is: 401 unsigned, forged
 * or stale; 400 signed but unreadable; 413 too large to keep; 500 only when the request was
 * good and a secret or the inbox failed us, so that the sender retries it.
 */
export type Admission =
  | { type: 'refuse'; status: 400 | 401 | 413; reason: string }
  | { type: 'answer'; response: IngressResponse; ignored?: { reason: string; detail?: string | undefined } }
  | { type: 'enqueue'; envelope: InboxEnvelope; accepted: IngressResponse; note?: Record<string, unknown> }
  | { type: 'unavailable'; reason: string; error: unknown };

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

const JSON_HEADERS = { 'content-type': 'application/json' };
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=utf-8' };

export function respond(statusCode: number, body: string): IngressResponse {
  return { statusCode, headers: TEXT_HEADERS, body };
}

export function respondJson(statusCode: number, body: unknown): IngressResponse {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

const REFUSAL_TEXT = { 400: 'Bad Request', 401: 'Unauthorized', 413: 'Payload Too Large' } as const;

/**
 * A deterministic refusal: the same bytes would fail the same way, so `x-slack-no-retry` asks
 * Slack not to retry (GitHub and PagerDuty do not retry 4xx anyway). A 401 names no reason:
 * the caller may be probing.
 */
export function refusal(status: 400 | 401 | 413, reason: string): IngressResponse {
  return {
    statusCode: status,
    headers: { ...TEXT_HEADERS, 'x-slack-no-retry': '1' },
    body: status === 401 ? REFUSAL_TEXT[status] : `${REFUSAL_TEXT[status]}: ${reason}`,
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body's text, or undefined when its bytes are not UTF-8. */
export function decodeUtf8(body: Uint8Array | string): string | undefined {
  if (typeof body === 'string') return body;
  try {
    return utf8.decode(body);
  } catch {
    return undefined;
  }
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Name and message only: SDK errors can carry request metadata we do not want in logs. */
export function errorSummary(error: unknown): { name: string; message: string; cause?: string } {
  if (!(error instanceof Error)) return { name: 'NonError', message: String(error) };
  const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
  return { name: error.name, message: error.message, ...(cause === undefined ? {} : { cause }) };
}
