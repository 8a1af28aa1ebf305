import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import * as z from 'zod';
import type { ModelReply, UsageCounts } from '../../statemachines/demo/reply.ts';

/**
 * The Anthropic Messages API's wire format, as far as the local model servers speak it:
 * `POST /v1/messages` (non-streaming) answered with a JSON message, or with the API's error
 * body. `@anthropic-ai/sdk` reads replies only when they are `content-type: application/json`.
 */

export type { ModelReply } from '../../statemachines/demo/reply.ts';
export { systemText } from '../../statemachines/demo/reply.ts';

/** The API's error type for an HTTP status. */
export function errorTypeFor(status: number): string {
  if (status === 529) return 'overloaded_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

const DEFAULT_USAGE: UsageCounts = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

export function sendReply(
  res: ServerResponse,
  reply: ModelReply,
  context: { id: string; model: string; retryAfterMs?: number },
): void {
  if (reply.kind === 'raw') {
    res.writeHead(reply.status, { 'content-type': reply.contentType }).end(reply.body);
    return;
  }
  if (reply.kind === 'error') {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': context.id };
    if (reply.shouldRetry !== undefined) headers['x-should-retry'] = String(reply.shouldRetry);
    if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
    // Keeps the SDK's backoff between retries short: the scripted failures are instant.
    else if (context.retryAfterMs !== undefined) headers['retry-after-ms'] = String(context.retryAfterMs);
    res
      .writeHead(reply.status, headers)
      .end(JSON.stringify({ type: 'error', error: { type: reply.errorType, message: reply.message } }));
    return;
  }
  const message = {
    id: context.id,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: null,
    usage: { ...DEFAULT_USAGE, ...reply.usage },
  };
  res
    .writeHead(200, { 'content-type': 'application/json', 'request-id': context.id })
    .end(JSON.stringify(message));
}

const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().nonnegative(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })).min(1),
  stream: z.literal(false).optional(),
});

/** The request body as the SDK sent it, or the 400 the API would answer. */
export function parseMessagesRequest(
  body: string,
): { ok: true; request: MessageCreateParamsNonStreaming } | { ok: false; reply: ModelReply } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, reply: invalidRequest('the request body is not JSON') };
  }
  const parsed = MessagesRequest.safeParse(value);
  if (!parsed.success) return { ok: false, reply: invalidRequest(z.prettifyError(parsed.error)) };
  return { ok: true, request: parsed.data as unknown as MessageCreateParamsNonStreaming };
}

function invalidRequest(message: string): ModelReply {
  return { kind: 'error', status: 400, errorType: 'invalid_request_error', message };
}

/** Is this `POST .../v1/messages`? (The sandbox may mount the server under a prefix.) */
export function isMessagesCall(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0] ?? '';
  return req.method === 'POST' && path.endsWith('/v1/messages');
}
