import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { parseBedrockModelId } from '../infra/bedrock-model-id.ts';
import { NO_USAGE, type Usage } from './types.ts';

/**
 * The harness's model proxy: the sandbox's model front forwards every Messages API call here.
 * Live, it passes the call to the upstream model (the caller's ANTHROPIC_BASE_URL, the Anthropic
 * API, or the sandbox's offline demo model) and keeps the exchange (bodies only: no header, so
 * no key, is ever kept). With a recording, it answers from the recorded exchanges instead and
 * never reaches a model, so a rerun needs no key and gets the same answers.
 *
 * Matching a request to a recorded answer: the request with its digits masked (times, ids and
 * counters differ between runs) must equal a recorded one not used yet; failing that, the next
 * unused answer of the same lane (the turn's final tool, and the hypothesis an investigator
 * works on, since parallel turns interleave differently from run to run).
 *
 * A replayed run's Slack message ids differ from the recorded run's: each match teaches the
 * proxy which recorded id is which of this run (they stand at the same places of two requests
 * holding as many ids), and every recorded answer is sent with the recorded ids put back as
 * this run's (so a fix request cites the replayed message, and a tool call the replayed bug).
 *
 * The judge's exchanges are kept in the same recording (lane `judge`), so a replay grades with
 * the recorded verdicts and calls no model at all.
 */

export interface Exchange {
  lane: string;
  key: string;
  request: unknown;
  status: number;
  response: unknown;
}

export interface Recording {
  model: string;
  exchanges: Exchange[];
  /** The judge's exchanges: the message it was sent (`request`) and its reply's text (`response`). */
  judge: Exchange[];
}

/** The lane the judge's exchanges are kept in. */
export const JUDGE_LANE = 'judge';

export interface ModelProxy {
  readonly url: string;
  /** Every exchange of this run, in the order answered. */
  readonly exchanges: Exchange[];
  /** Requests a replay had no answer for. */
  readonly misses: string[];
  /** Calls the upstream model failed (unreachable, or answered with an error status), in words. */
  readonly failures: string[];
  /** The judge's exchanges of this run (kept by the judge transport the session records). */
  readonly judged: Exchange[];
  /** Sets where live calls go (the sandbox's demo model is known only once it started). */
  setUpstream(url: string): void;
  usage(): Usage;
  save(path: string, model: string): void;
  close(): Promise<void>;
}

type Body = {
  model?: string;
  system?: unknown;
  messages?: { role: string; content: unknown }[];
  tools?: { name?: string }[];
};

export function laneOf(body: Body): string {
  const submit = body.tools?.at(-1)?.name ?? 'text';
  const text = JSON.stringify(body.messages?.[0]?.content ?? '');
  const hypothesis = /You investigate hypothesis (H[\d.]+)/.exec(text)?.[1];
  return hypothesis ? `${submit}:${hypothesis}` : submit;
}

export function keyOf(body: Body): string {
  return JSON.stringify({
    system: body.system,
    messages: body.messages,
    tools: body.tools?.map((t) => t.name),
  })
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '%')
    .replace(/\d+/g, '#')
    .replace(/[0-9a-f]{7,}/g, '%');
}

export function readRecording(path: string): Recording {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const [head, ...rest] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  if (head?.kind !== 'meta') throw new Error(`${path} is not a recording of model exchanges (no meta line)`);
  const all = rest as unknown as Exchange[];
  return {
    model: String(head.model),
    exchanges: all.filter((e) => e.lane !== JUDGE_LANE),
    judge: all.filter((e) => e.lane === JUDGE_LANE),
  };
}

/** A Slack message id (`1764633600.000100`), also as ids built from it write it (`1764633600-000100`). */
const SLACK_TS = /\b\d{10}[.-]\d{6}\b/g;

/** Learns which recorded Slack ids are which of this run: the ids at the same places of two matched requests of the same shape. */
export function learnIds(recorded: unknown, current: unknown, ids: Map<string, string>): void {
  const was = JSON.stringify(recorded ?? '').match(SLACK_TS) ?? [];
  const now = JSON.stringify(current ?? '').match(SLACK_TS) ?? [];
  if (was.length !== now.length) return;
  was.forEach((id, i) => {
    const mine = now[i];
    if (mine !== undefined && mine !== id) ids.set(id, mine);
  });
}

/** A recorded answer with the recorded Slack ids replaced by this run's. */
export function mapIds<T>(response: T, ids: ReadonlyMap<string, string>): T {
  if (ids.size === 0) return response;
  return JSON.parse(JSON.stringify(response).replace(SLACK_TS, (id) => ids.get(id) ?? id)) as T;
}

/**
 * The Anthropic API's id of a Bedrock model id (`global.anthropic.claude-x-v1:0` -> `claude-x`), for
 * a stack configured with Bedrock whose calls the sandbox's Bedrock emulator hands on to the
 * Messages API; any other id is returned as it is.
 */
export function anthropicModelOf(id: string): string {
  const foundation = parseBedrockModelId(id)?.foundationModelId;
  return foundation ? foundation.replace(/^anthropic\./, '').replace(/-v\d+:\d+$/, '') : id;
}

export async function startModelProxy(options: {
  upstream?: string;
  replay?: Recording;
}): Promise<ModelProxy> {
  let upstream = options.upstream;
  const exchanges: Exchange[] = [];
  const judged: Exchange[] = [];
  const misses: string[] = [];
  const failures: string[] = [];
  // Keyed again from the recorded request: a recording keeps its requests, and keys improve.
  const unused = (options.replay?.exchanges ?? []).map((e) => ({ ...e, key: keyOf(e.request as Body) }));
  const ids = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Body = {};
        try {
          body = JSON.parse(text) as Body;
        } catch {
          // Not JSON: forwarded as it is, matched by nothing.
        }
        const lane = laneOf(body);
        const key = keyOf(body);
        if (options.replay) {
          const exact = unused.findIndex((e) => e.key === key);
          const at = exact >= 0 ? exact : unused.findIndex((e) => e.lane === lane);
          const found = at >= 0 ? unused.splice(at, 1)[0] : undefined;
          if (found) learnIds(found.request, body, ids);
          if (!found) {
            misses.push(lane);
            res.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
            res.end(
              JSON.stringify({
                type: 'error',
                error: { type: 'api_error', message: `replay: no recorded answer in lane ${lane}` },
              }),
            );
            return;
          }
          const response = mapIds(found.response, ids);
          exchanges.push({ ...found, request: body, response });
          res.writeHead(found.status, { 'content-type': 'application/json' }).end(JSON.stringify(response));
          return;
        }
        if (!upstream) {
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"no upstream model"}');
          return;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (value !== undefined && !['host', 'content-length', 'connection'].includes(name))
            headers[name] = Array.isArray(value) ? value.join(',') : value;
        try {
          const out =
            typeof body.model === 'string' ? { ...body, model: anthropicModelOf(body.model) } : undefined;
          const answer = await fetch(`${upstream.replace(/\/$/, '')}${req.url ?? '/v1/messages'}`, {
            method: req.method ?? 'POST',
            headers,
            body: out && out.model !== body.model ? JSON.stringify(out) : text,
          });
          const reply = await answer.text();
          let response: unknown = reply;
          try {
            response = JSON.parse(reply);
          } catch {
            // A non-JSON answer is kept as text.
          }
          exchanges.push({ lane, key, request: body, status: answer.status, response });
          if (answer.status >= 400)
            failures.push(`the model answered HTTP ${answer.status}: ${reply.slice(0, 300)}`);
          const type = answer.headers.get('content-type') ?? 'application/json';
          res.writeHead(answer.status, { 'content-type': type }).end(reply);
        } catch (error) {
          failures.push(`the model could not be reached: ${String(error)}`);
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              type: 'error',
              error: { type: 'api_error', message: `eval proxy: ${String(error)}` },
            }),
          );
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    judged,
    misses,
    failures,
    setUpstream(url) {
      upstream = url;
    },
    usage: () => usageOf(exchanges),
    save(path, model) {
      mkdirSync(dirname(path), { recursive: true });
      const lines = [
        JSON.stringify({ kind: 'meta', model }),
        ...[...exchanges, ...judged].map((e) => JSON.stringify(e)),
      ];
      writeFileSync(path, `${lines.join('\n')}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Reply = {
  content?: { type: string; name?: string }[];
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
  };
};

/** Calls, tool calls (the final `submit...` tools not counted) and tokens of the exchanges. */
export function usageOf(exchanges: readonly Exchange[]): Usage {
  const usage = { ...NO_USAGE };
  for (const e of exchanges) {
    if (e.status !== 200 || typeof e.response !== 'object' || e.response === null) continue;
    const reply = e.response as Reply;
    usage.modelCalls++;
    usage.toolCalls += (reply.content ?? []).filter(
      (b) => b.type === 'tool_use' && !(b.name ?? '').startsWith('submit'),
    ).length;
    usage.inputTokens += reply.usage?.input_tokens ?? 0;
    usage.outputTokens += reply.usage?.output_tokens ?? 0;
    usage.cacheReadTokens += reply.usage?.cache_read_input_tokens ?? 0;
    usage.cacheWriteTokens += reply.usage?.cache_creation_input_tokens ?? 0;
  }
  return usage;
}

/** The text of every tool result the model was given, by the evidence id it opens with. */
export function evidenceTexts(exchanges: readonly Exchange[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const e of exchanges) {
    for (const message of (e.request as Body).messages ?? []) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type?: string; content?: unknown }[]) {
        if (block.type !== 'tool_result') continue;
        const text = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '');
        const id = /Cite it as (ev-\d+)/.exec(text)?.[1];
        if (id && !texts.has(id)) texts.set(id, text);
      }
    }
  }
  return texts;
}
