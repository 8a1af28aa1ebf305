import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  MessageCreateParamsNonStreaming,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { noteActivity } from '../../local/activity.ts';
import { keepIdleConnections } from '../../local/http-server.ts';
import {
  errorTypeFor,
  isMessagesCall,
  type ModelReply,
  parseMessagesRequest,
  sendReply,
} from '../../local/model/messages-wire.ts';
import { readBody } from '../../local/read-body.ts';
import { blocksOf, type MessageReply } from '../../statemachines/demo/reply.ts';

/**
 * A scripted fake of the Anthropic Messages API for tests: each `POST /v1/messages` gets the
 * next step of the script (a reply, or a function of the request that returns one), and every
 * request is recorded so a test can assert what the model was sent. It fails loudly: a
 * request after the script ran out, or a step that throws (a failed assertion inside it),
 * is answered HTTP 500 with the reason and `x-should-retry: false`, and recorded in `failures`.
 */

export type { ModelReply } from '../../local/model/messages-wire.ts';
export { systemText } from '../../local/model/messages-wire.ts';
export { toolResultText } from '../../statemachines/demo/reply.ts';

export interface RecordedModelRequest {
  /** 0-based position among the requests this server received. */
  index: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: MessageCreateParamsNonStreaming;
  /** What the server answered: `message`, `error <status>` or `raw <status>`. */
  answered: string;
}

export type ScriptStep = ModelReply | ((request: RecordedModelRequest) => ModelReply | Promise<ModelReply>);

export interface ScriptedModelOptions {
  /** The replies in order, or one function answering every request. */
  steps:
    | readonly ScriptStep[]
    | ((request: RecordedModelRequest, index: number) => ModelReply | Promise<ModelReply>);
  /**
   * `retry-after-ms` sent with error replies, so the SDK's retries do not wait its default backoff.
   * @default 1
   */
  retryAfterMs?: number;
}

export interface ScriptedModel {
  /** Answers one HTTP request (mount it in another server, e.g. the sandbox's). */
  handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void>;
  readonly requests: RecordedModelRequest[];
  /** What went wrong on the server's side: a test should expect this to be empty. */
  readonly failures: string[];
  /** Steps not used yet (always 0 for a function script). */
  remaining(): number;
}

let toolUseCounter = 0;

/** A text-only reply (`stop_reason: end_turn`). */
export function text(value: string): MessageReply {
  return { kind: 'message', content: [{ type: 'text', text: value }], stopReason: 'end_turn' };
}

/** A reply calling one tool. */
export function toolUse(name: string, input: unknown, options: { id?: string } = {}): MessageReply {
  toolUseCounter += 1;
  const id = options.id ?? `toolu_scripted_${String(toolUseCounter).padStart(6, '0')}`;
  return { kind: 'message', content: [{ type: 'tool_use', id, name, input }], stopReason: 'tool_use' };
}

/** A reply submitting the turn's result through `submit_result`. */
export function submit(result: unknown): MessageReply {
  return toolUse(SUBMIT_TOOL, result);
}

/**
 * The reminder a turn gives a model that has not called `submit_result`
 * (lambdas/agents/submissions.ts `submitNowNote`), stated here: the tests check the words the
 * model reads.
 */
export const SUBMIT_NOW_NOTE =
  '[runtime] Call submit_result now with what you have: this turn ends without a result otherwise.';

/** One reply made of several: `reply(text('Looking...'), toolUse('a', {}), toolUse('b', {}))`. */
export function reply(...parts: MessageReply[]): MessageReply {
  const content = parts.flatMap((part) => part.content);
  return {
    kind: 'message',
    content,
    stopReason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
  };
}

/** The same reply with the given token usage. */
export function withUsage(message: MessageReply, usage: NonNullable<MessageReply['usage']>): MessageReply {
  return { ...message, usage };
}

/** An HTTP error as the API sends it: 500 api_error, 529 overloaded_error, 400 invalid_request_error... */
export function httpError(status: number, message = `scripted HTTP ${status}`): ModelReply {
  return { kind: 'error', status, errorType: errorTypeFor(status), message };
}

/** A 429 (or `status`) that asks the client to wait `seconds` before it retries (`retry-after`). */
export function retryAfter(seconds: number, status = 429): ModelReply {
  return {
    kind: 'error',
    status,
    errorType: errorTypeFor(status),
    message: `scripted HTTP ${status}: retry after ${seconds} s`,
    retryAfterSeconds: seconds,
  };
}

/** A 200 whose body is not a usable message: by default, JSON cut off in the middle. */
export function malformed(
  body = '{"id":"msg_broken","type":"message","content":[{"type":"tool_u',
): ModelReply {
  return { kind: 'raw', status: 200, contentType: 'application/json', body };
}

/**
 * The error for a request its conversation's script has no step left for, worded to tell a
 * resent request from a new one: the SDK's retry count (`x-stainless-retry-count`), the agent it
 * came from (its submit tool), and the earlier request of the same conversation whose messages
 * it repeats, if one does.
 */
export function noStepLeft(
  script: string,
  request: RecordedModelRequest,
  earlier: readonly RecordedModelRequest[],
): Error {
  const agent = (r: RecordedModelRequest) =>
    (r.body.tools ?? [])
      .map((tool) => ('name' in tool ? tool.name : ''))
      .find((name) => name.startsWith('submit')) ?? 'no submit tool';
  const messages = JSON.stringify(request.body.messages);
  const repeated = earlier.find((r) => JSON.stringify(r.body.messages) === messages);
  const served = earlier.map((r) => `${r.index} (${agent(r)})`).join(', ') || 'none';
  return new Error(
    `the script of ${script} has no step left for request ${request.index} (${agent(request)}, retry ${request.headers['x-stainless-retry-count'] ?? 'unknown'}, ` +
      `${repeated ? `the messages of request ${repeated.index} again` : `${request.body.messages.length} messages, new`}; served before: ${served})`,
  );
}

export function createScriptedModel(options: ScriptedModelOptions): ScriptedModel {
  const requests: RecordedModelRequest[] = [];
  const failures: string[] = [];
  let next = 0;
  const steps = options.steps;
  const retryAfterMs = options.retryAfterMs ?? 1;

  const fail = (message: string): ModelReply => {
    failures.push(message);
    return { kind: 'error', status: 500, errorType: 'api_error', message, shouldRetry: false };
  };

  const answer = async (recorded: RecordedModelRequest): Promise<ModelReply> => {
    try {
      if (typeof steps === 'function') return await steps(recorded, recorded.index);
      const step = steps[next];
      if (step === undefined) {
        return fail(
          `scripted model: the script ran out: request ${recorded.index + 1} has no step (the script has ${steps.length})`,
        );
      }
      next += 1;
      return typeof step === 'function' ? await step(recorded) : step;
    } catch (error) {
      return fail(
        `scripted model: step for request ${recorded.index + 1} threw: ${(error as Error).message}`,
      );
    }
  };

  return {
    requests,
    failures,
    remaining: () => (typeof steps === 'function' ? 0 : steps.length - next),
    async handle(req, res, body) {
      const id = `msg_scripted_${String(requests.length + 1).padStart(6, '0')}`;
      if (!isMessagesCall(req)) {
        const message = `scripted model: unexpected ${req.method} ${req.url}`;
        failures.push(message);
        sendReply(
          res,
          { kind: 'error', status: 404, errorType: 'not_found_error', message },
          { id, model: 'scripted' },
        );
        return;
      }
      const parsed = parseMessagesRequest(body);
      if (!parsed.ok) {
        if (parsed.reply.kind === 'error')
          failures.push(`scripted model: bad request: ${parsed.reply.message}`);
        sendReply(res, parsed.reply, { id, model: 'scripted' });
        return;
      }
      const recorded: RecordedModelRequest = {
        index: requests.length,
        path: req.url ?? '',
        headers: req.headers,
        body: parsed.request,
        answered: '',
      };
      requests.push(recorded);
      const result = await answer(recorded);
      recorded.answered = result.kind === 'message' ? 'message' : `${result.kind} ${result.status}`;
      sendReply(res, result, { id, model: parsed.request.model, retryAfterMs });
    },
  };
}

/** A scripted model on its own HTTP server: point `ANTHROPIC_BASE_URL` (or the client's `baseURL`) at `baseUrl`. */
export async function startScriptedModel(
  options: ScriptedModelOptions,
): Promise<ScriptedModel & { baseUrl: string; close(): Promise<void> }> {
  const model = createScriptedModel(options);
  const server = createServer((req, res) => {
    noteActivity();
    readBody(req)
      .then((body) => model.handle(req, res, body))
      .catch((error: unknown) => {
        model.failures.push(`scripted model: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
      });
  });
  keepIdleConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(model, {
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** The text blocks of the request's last message (for a new turn: its prompt). */
export function lastUserText(request: MessageCreateParamsNonStreaming): string {
  return blocksOf(request.messages.at(-1))
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n');
}

/** The tool results the request's last message carries. */
export function lastToolResults(request: MessageCreateParamsNonStreaming): ToolResultBlockParam[] {
  return blocksOf(request.messages.at(-1)).filter(
    (block): block is ToolResultBlockParam => block.type === 'tool_result',
  );
}
