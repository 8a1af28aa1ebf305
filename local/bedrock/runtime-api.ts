import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { BEDROCK_EXCEPTION_STATUS, type BedrockException, bedrockExceptionFor } from './errors.ts';
import { checkSignatureShape, type SignatureShape } from './sigv4.ts';

/**
 * An emulated Bedrock Runtime endpoint in front of a Messages API server (the sandbox's
 * offline demo model, a test's scripted model): `POST /model/{modelId}/invoke` with
 * Anthropic's body as Bedrock takes it (`anthropic_version` in the body, the model id in the
 * path) becomes `POST {upstream}/v1/messages` with the model in the body, and the answer goes
 * back as Bedrock sends it: the message unchanged on 200, a Bedrock exception otherwise.
 * `invoke-with-response-stream` is refused: no client of this project streams.
 */

/** Bedrock Runtime's InvokeModel path (`/model/{modelId}/invoke`); the id is URL-encoded (`:` as `%3A`). */
const INVOKE_PATH = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

/** Is this a Bedrock Runtime call (the sandbox serves every API on one port)? */
export function isBedrockRuntimeRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0] ?? '';
  return path.startsWith('/model/');
}

/** What Bedrock's InvokeModel body for an Anthropic model must have; the rest is the Messages API's. */
const InvokeBody = z.looseObject({
  anthropic_version: z.string().min(1),
  anthropic_beta: z.array(z.string()).optional(),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.unknown()).min(1),
});

/** One InvokeModel call the emulator answered (tests check the model id and the signature). */
export interface BedrockInvocation {
  modelId: string;
  signature: SignatureShape;
  anthropicVersion: string;
  /** The HTTP status sent back. */
  status: number;
}

export interface BedrockRuntimeOptions {
  /** The Messages API base URL requests go to (`{upstream}/v1/messages`), read per call. */
  upstream: () => string;
  /** Sent as `x-api-key` upstream when the upstream wants one. */
  upstreamApiKey?: () => string | undefined;
}

export interface BedrockRuntime {
  handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void>;
  /** The latest calls, oldest first (at most 200 kept). */
  readonly invocations: BedrockInvocation[];
}

const KEPT_INVOCATIONS = 200;

export function createBedrockRuntime(options: BedrockRuntimeOptions): BedrockRuntime {
  const invocations: BedrockInvocation[] = [];
  let counter = 0;
  const requestId = () => {
    counter += 1;
    return `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  };

  return {
    invocations,
    async handle(req, res, body) {
      const id = requestId();
      const path = (req.url ?? '').split('?')[0] ?? '';
      const match = INVOKE_PATH.exec(path);
      if (req.method !== 'POST' || !match) {
        return sendException(
          res,
          id,
          'UnknownOperationException',
          `no Bedrock Runtime operation at ${req.method} ${path}`,
        );
      }
      const signed = checkSignatureShape(req);
      if (!signed.ok) return sendException(res, id, 'MissingAuthenticationTokenException', signed.reason);
      const modelId = decodeURIComponent(match[1] ?? '');
      if (match[2] === 'invoke-with-response-stream') {
        return sendException(
          res,
          id,
          'ValidationException',
          'the sandbox does not emulate InvokeModelWithResponseStream',
        );
      }
      let parsedJson: unknown;
      try {
        parsedJson = JSON.parse(body);
      } catch {
        return sendException(res, id, 'ValidationException', 'Malformed input request: the body is not JSON');
      }
      const parsed = InvokeBody.safeParse(parsedJson);
      if (!parsed.success) {
        return sendException(
          res,
          id,
          'ValidationException',
          `Malformed input request: ${z.prettifyError(parsed.error)}`,
        );
      }
      if ('model' in parsed.data) {
        return sendException(
          res,
          id,
          'ValidationException',
          'Malformed input request: extraneous key [model] is not permitted',
        );
      }
      const { anthropic_version: anthropicVersion, anthropic_beta: betas, ...messages } = parsed.data;
      const upstream = await fetch(`${options.upstream().replace(/\/$/, '')}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': anthropicVersion,
          ...(betas?.length ? { 'anthropic-beta': betas.join(',') } : {}),
          ...(options.upstreamApiKey?.() ? { 'x-api-key': options.upstreamApiKey() as string } : {}),
        },
        body: JSON.stringify({ ...messages, model: modelId }),
      });
      const text = await upstream.text();
      invocations.push({ modelId, signature: signed.signature, anthropicVersion, status: upstream.status });
      if (invocations.length > KEPT_INVOCATIONS) invocations.shift();
      // Retry hints of the model behind (a scripted failure's `x-should-retry: false`) pass
      // through, so a script behaves the same behind either provider.
      const hints = retryHints(upstream.headers);
      if (upstream.ok) {
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'application/json',
          'x-amzn-requestid': id,
          ...usageHeaders(text),
          ...hints,
        });
        return void res.end(text);
      }
      const exception = bedrockExceptionFor(upstream.status);
      sendException(
        res,
        id,
        exception,
        upstreamMessage(text) ?? `the model answered HTTP ${upstream.status}`,
        hints,
      );
    },
  };
}

function sendException(
  res: ServerResponse,
  requestId: string,
  exception: BedrockException,
  message: string,
  extraHeaders: Record<string, string> = {},
): void {
  res
    .writeHead(BEDROCK_EXCEPTION_STATUS[exception], {
      'content-type': 'application/json',
      'x-amzn-requestid': requestId,
      'x-amzn-errortype': exception,
      ...extraHeaders,
    })
    .end(JSON.stringify({ message }));
}

function retryHints(headers: Headers): Record<string, string> {
  const hints: Record<string, string> = {};
  for (const name of ['x-should-retry', 'retry-after-ms', 'retry-after']) {
    const value = headers.get(name);
    if (value !== null) hints[name] = value;
  }
  return hints;
}

/** Bedrock reports the token counts of an invocation in headers as well as in the body's usage. */
function usageHeaders(text: string): Record<string, string> {
  try {
    const usage = (JSON.parse(text) as { usage?: { input_tokens?: unknown; output_tokens?: unknown } }).usage;
    return {
      ...(typeof usage?.input_tokens === 'number'
        ? { 'x-amzn-bedrock-input-token-count': String(usage.input_tokens) }
        : {}),
      ...(typeof usage?.output_tokens === 'number'
        ? { 'x-amzn-bedrock-output-token-count': String(usage.output_tokens) }
        : {}),
    };
  } catch {
    // A malformed answer goes back byte for byte: the client is the one to notice.
    return {};
  }
}

/** The message of a Messages API error body (`{type:'error', error:{message}}`). */
function upstreamMessage(text: string): string | undefined {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}
