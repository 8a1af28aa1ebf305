import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import { noteActivity } from '../activity.ts';
import { keepIdleConnections } from '../http-server.ts';
import { readBody } from '../read-body.ts';
import { type FakeSlack, SlackApiError } from './fake-slack.ts';
import { SLACK_METHODS, type SlackArgs, UPLOAD_PATH } from './methods.ts';
import { STREAM_METHODS } from './streams.ts';

export type SlackHttpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body?: string | Buffer,
) => Promise<void>;

/**
 * Slack's Web API over HTTP as `@slack/web-api` calls it: `POST /api/<method>` with the
 * bot token as a Bearer header and a form-encoded body whose structured fields are JSON
 * strings (JSON bodies and a `token` field are accepted too). Like Slack, it answers
 * HTTP 200 with `{ ok: false, error }` for every failure except rate limits, which get
 * HTTP 429 and `Retry-After` (see `FakeSlack.rateLimit`).
 *
 * `body` is the request body if the caller has already read it; otherwise it is read here.
 */
/** Web API methods that change what people see: the bot doing its work. */
const WRITES = /^(?:chat|reactions|views|files|assistant|pins|bookmarks)\./;

export function createSlackApiHandler(
  slack: FakeSlack,
  /** The token's OAuth scopes, sent as Slack sends them (`x-oauth-scopes`). @default - no header */
  options: { scopes?: () => readonly string[] } = {},
): SlackHttpHandler {
  return async (req, res, body) => {
    const text = body === undefined ? await readBody(req) : body.toString('utf8');
    const url = new URL(req.url ?? '/', 'http://slack.local');
    const method = url.pathname.replace(/^.*\/api\//, '').replace(/\/$/, '');
    if (method.startsWith(UPLOAD_PATH)) {
      await receiveUpload(slack, method.slice(UPLOAD_PATH.length), text, req.headers['content-type'], res);
      return;
    }
    const apiBaseUrl = `http://${req.headers.host ?? 'localhost'}${url.pathname.replace(/\/api\/.*$/, '')}/api/`;
    let args: SlackArgs;
    try {
      args = { ...Object.fromEntries(url.searchParams), ...parseBody(text, req.headers['content-type']) };
    } catch {
      answer(res, { ok: false, error: 'invalid_form_data' });
      return;
    }
    const handler = SLACK_METHODS[method] ?? STREAM_METHODS[method];
    // What the bot writes is the sandbox at work; a read may be a test polling for it.
    if (WRITES.test(method)) noteActivity();
    if (!handler) {
      answer(res, { ok: false, error: 'unknown_method', req_method: method });
      return;
    }
    const token =
      bearerToken(req.headers.authorization) ?? (typeof args.token === 'string' ? args.token : undefined);
    const { token: _ignored, ...callArgs } = args;
    if (token === undefined || token === '') {
      slack.recordApiCall({ method, args: callArgs, outcome: { error: 'not_authed' } });
      answer(res, { ok: false, error: 'not_authed' });
      return;
    }
    if (token !== slack.botToken) {
      slack.recordApiCall({ method, args: callArgs, outcome: { error: 'invalid_auth' } });
      answer(res, { ok: false, error: 'invalid_auth' });
      return;
    }
    const fault = slack.faults.take(
      method,
      typeof callArgs.channel === 'string' ? callArgs.channel : undefined,
    );
    if (fault?.kind === 'rate_limited') {
      slack.recordApiCall({ method, args: callArgs, outcome: 'rate_limited' });
      answer(res, { ok: false, error: 'ratelimited' }, 429, {
        'retry-after': String(fault.retryAfterSeconds),
      });
      return;
    }
    if (fault?.kind === 'server_error') {
      slack.recordApiCall({ method, args: callArgs, outcome: { error: 'http_500' } });
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      return;
    }
    if (fault?.kind === 'no_answer') {
      slack.recordApiCall({ method, args: callArgs, outcome: { error: 'no_answer' } });
      await holdUntilClientGivesUp(res);
      return;
    }
    try {
      const result = handler(slack, callArgs, { apiBaseUrl });
      slack.recordApiCall({ method, args: callArgs, outcome: fault ? { error: 'accepted_then_500' } : 'ok' });
      if (fault?.kind === 'accepted_then_error') {
        // Done, but the answer is lost: the client sees a server error.
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
        return;
      }
      answer(res, { ok: true, ...result }, 200, scopeHeader(options.scopes?.()));
    } catch (error) {
      if (!(error instanceof SlackApiError)) throw error;
      slack.recordApiCall({ method, args: callArgs, outcome: { error: error.code } });
      answer(res, {
        ok: false,
        error: error.code,
        ...(error.message === error.code ? {} : { detail: error.message }),
      });
    }
  };
}

export interface FakeSlackServer {
  server: Server;
  /** For `new WebClient(token, { slackApiUrl })`: ends in `/api/`. */
  slackApiUrl: string;
  close(): Promise<void>;
}

/** Serves the fake on its own HTTP server (tests, scripts); the sandbox mounts the handler. */
export async function listenFakeSlack(
  slack: FakeSlack,
  options: { host?: string; port?: number } = {},
): Promise<FakeSlackServer> {
  const { host = '127.0.0.1', port = 0 } = options;
  const handler = createSlackApiHandler(slack);
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : String(error));
    });
  });
  keepIdleConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    slackApiUrl: `http://${host}:${address.port}/api/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseBody(text: string, contentType: string | undefined): SlackArgs {
  if (text.trim() === '') return {};
  if (contentType?.includes('application/json')) {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed as SlackArgs;
  }
  if (contentType?.includes('multipart/form-data')) throw new Error('multipart bodies are not supported');
  const fields: SlackArgs = {};
  for (const [name, value] of Object.entries(parseQuery(text))) {
    fields[name] = Array.isArray(value) ? value.at(-1) : value;
  }
  return fields;
}

/**
 * Step 2 of `files.uploadV2`: the client posts the bytes to the upload URL as multipart form
 * data (field `body`), without the bot token, and Slack answers 200 with plain text.
 */
async function receiveUpload(
  slack: FakeSlack,
  fileId: string,
  body: string,
  contentType: string | undefined,
  res: ServerResponse,
): Promise<void> {
  let content: string;
  try {
    const form = await new Request('http://slack.local/upload', {
      method: 'POST',
      headers: { 'content-type': contentType ?? 'application/octet-stream' },
      body,
    }).formData();
    const file = form.get('body') ?? form.get('file');
    if (file === null) throw new Error('no file field');
    content = typeof file === 'string' ? file : await file.text();
  } catch {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid upload');
    return;
  }
  try {
    slack.receiveUpload(fileId, content);
  } catch (error) {
    if (!(error instanceof SlackApiError)) throw error;
    res.writeHead(404, { 'content-type': 'text/plain' }).end(error.code);
    return;
  }
  slack.recordApiCall({ method: 'files.upload.external', args: { file_id: fileId }, outcome: 'ok' });
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${Buffer.byteLength(content)}`);
}

/** Never answers; resolves when the client closed the connection (its timeout), or after 15 minutes. */
async function holdUntilClientGivesUp(res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 15 * 60_000);
    timer.unref();
    res.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  if (!res.writableEnded) res.destroy();
}

/** Slack names the token's scopes in a header of every authenticated answer. */
function scopeHeader(scopes: readonly string[] | undefined): Record<string, string> {
  return scopes === undefined ? {} : { 'x-oauth-scopes': scopes.join(',') };
}

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1]?.trim();
}

function answer(
  res: ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}
