import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { FaultSchedule } from '../fault-schedule.ts';
import {
  errorTypeFor,
  isMessagesCall,
  type ModelReply,
  parseMessagesRequest,
  sendReply,
} from './messages-wire.ts';

/**
 * Misbehaviour of the model on purpose, for a while, in front of whichever model
 * the sandbox serves (the demo model, or a test's scripted model it forwards to):
 * - `hang`: no answer until the client gives up (its timeout);
 * - `never_submits`: every answer calls a tool other than `submit_result`, forever;
 * - `overloaded` (529), `server_error` (500): the API's own errors;
 * - `rate_limited`: 429 with a `retry-after` (an hour by default: longer than any turn);
 * - `key_rejected`: 401 `authentication_error`, as the API answers a key it does not accept.
 */
export const ModelFaultKind = z.enum([
  'hang',
  'never_submits',
  'overloaded',
  'server_error',
  'rate_limited',
  'key_rejected',
]);
export type ModelFaultKind = z.infer<typeof ModelFaultKind>;

export const ModelFaultSpec = z
  .strictObject({
    kind: ModelFaultKind,
    /** For how long, from the first request it meets (seconds of the clock given to `ModelFaults`). */
    forSeconds: z.number().positive().optional(),
    /** For how many requests. */
    count: z.number().int().positive().optional(),
    /** `rate_limited` only: the `retry-after` seconds. @default 3600 */
    retryAfterSeconds: z.number().int().min(0).default(3_600),
  })
  .refine((spec) => spec.forSeconds !== undefined || spec.count !== undefined, {
    message: 'give forSeconds or count: a fault lasts a while, not forever',
  });
export type ModelFaultSpec = z.infer<typeof ModelFaultSpec>;
export type ModelFaultInput = z.input<typeof ModelFaultSpec>;

/** The model's faults in force; every Messages API request takes the oldest. */
export class ModelFaults {
  private readonly schedule: FaultSchedule<ModelFaultSpec>;
  /** Messages API requests seen, faulted or not. */
  requests = 0;

  constructor(now: () => number = Date.now) {
    this.schedule = new FaultSchedule(now);
  }

  add(input: ModelFaultInput): ModelFaultSpec {
    return this.schedule.add(ModelFaultSpec.parse(input));
  }

  clear(): void {
    this.schedule.clear();
  }

  take(): ModelFaultSpec | undefined {
    return this.schedule.take();
  }

  list() {
    return this.schedule.list();
  }
}

export type ModelHandler = (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void>;

/** The model behind the faults: each request meets the fault in force, or reaches `upstream`. */
export function withModelFaults(faults: ModelFaults, upstream: ModelHandler): ModelHandler {
  let served = 0;
  return async (req, res, body) => {
    if (!isMessagesCall(req)) return upstream(req, res, body);
    faults.requests += 1;
    const fault = faults.take();
    if (fault === undefined) return upstream(req, res, body);
    served += 1;
    const context = { id: `msg_fault_${String(served).padStart(6, '0')}`, model: 'faulty' };
    if (fault.kind === 'hang') return hang(res);
    sendReply(res, faultReply(fault, body), context);
  };
}

function faultReply(fault: ModelFaultSpec, body: string): ModelReply {
  switch (fault.kind) {
    case 'overloaded':
      return {
        kind: 'error',
        status: 529,
        errorType: errorTypeFor(529),
        message: 'Overloaded (sandbox fault)',
      };
    case 'server_error':
      return {
        kind: 'error',
        status: 500,
        errorType: errorTypeFor(500),
        message: 'Internal error (sandbox fault)',
      };
    case 'key_rejected':
      return {
        kind: 'error',
        status: 401,
        errorType: errorTypeFor(401),
        message: 'invalid x-api-key (sandbox fault)',
      };
    case 'rate_limited':
      return {
        kind: 'error',
        status: 429,
        errorType: errorTypeFor(429),
        message: 'Rate limited (sandbox fault)',
        retryAfterSeconds: fault.retryAfterSeconds,
      };
    default:
      return neverSubmits(body);
  }
}

/** A tool call that is not a submission: the first other tool the request offers, else plain text. */
function neverSubmits(body: string): ModelReply {
  const parsed = parseMessagesRequest(body);
  const tools = parsed.ok ? (parsed.request.tools ?? []) : [];
  const tool = tools
    .map((t) => ('name' in t ? t.name : ''))
    .find((name) => name !== '' && name !== SUBMIT_TOOL);
  if (tool === undefined) {
    return {
      kind: 'message',
      content: [{ type: 'text', text: 'Still thinking (sandbox fault).' }],
      stopReason: 'end_turn',
    };
  }
  return {
    kind: 'message',
    content: [
      {
        type: 'tool_use',
        id: `toolu_fault_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`,
        name: tool,
        input: {},
      },
    ],
    stopReason: 'tool_use',
  };
}

async function hang(res: ServerResponse): Promise<void> {
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

/**
 * Forwards a Messages API request to another server (a test's scripted model) unchanged, less
 * the path `prefix` it was served under.
 */
export function forwardTo(baseUrl: string, prefix: string): ModelHandler {
  return async (req, res, body) => {
    const url = req.url ?? '/';
    const path = url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : url;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || ['host', 'content-length', 'connection'].includes(name)) continue;
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const controller = new AbortController();
    res.once('close', () => controller.abort());
    try {
      const answer = await fetch(`${baseUrl.replace(/\/$/, '')}${path}`, {
        method: req.method ?? 'POST',
        headers,
        ...(req.method === 'GET' ? {} : { body }),
        signal: controller.signal,
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
          out[name] = value;
      });
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            type: 'error',
            error: { type: 'api_error', message: `sandbox model front: ${String(error)}` },
          }),
        );
      }
    }
  };
}
