import type {
  MessageCreateParamsNonStreaming,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { blocksOf, toolResultText } from '../demo/reply.ts';
import { promptLines } from '../demo/text.ts';

/**
 * What the offline demo model's incident agents read of a request (demo.ts): the
 * current turn's prompt and tool results, the service map the triage fetched, the service people
 * and alerts named, evidence ids and the error patterns of a log query.
 */

/** The texts and tool results of the current turn: everything after its prompt (`Incident id: ...`). */
export function currentTurn(request: MessageCreateParamsNonStreaming) {
  const messages = request.messages;
  let start = 0;
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    if (blocksOf(message).some((b) => b.type === 'text' && b.text.startsWith('Incident id:'))) start = index;
  });
  const blocks = messages.slice(start).flatMap((m) => blocksOf(m));
  const prompt =
    blocks.flatMap((b) => (b.type === 'text' && b.text.startsWith('Incident id:') ? [b.text] : []))[0] ?? '';
  const results = blocks
    .filter((b): b is ToolResultBlockParam => b.type === 'tool_result')
    .map(toolResultText);
  return { prompt, results };
}

/** Every tool result of the whole session (the hypothesizer reads the triage's service map). */
export function allResults(request: MessageCreateParamsNonStreaming): string[] {
  return request.messages
    .flatMap((m) => blocksOf(m))
    .filter((b): b is ToolResultBlockParam => b.type === 'tool_result')
    .map(toolResultText);
}

export const evidenceId = (result: string | undefined) => /Cite it as (ev-\d+)/.exec(result ?? '')?.[1];

export interface MappedService {
  name: string;
  dependencies: string[];
}

/** The services of a `service_map` result: `- name: description` and `  depends on: a, b; ...`. */
export function servicesOf(result: string): MappedService[] {
  return [...result.matchAll(/^- ([a-z0-9][a-z0-9._-]*): .*\n {2}depends on: ([^;\n]*)/gm)].map((m) => ({
    name: m[1] ?? '',
    dependencies: (m[2] ?? '')
      .split(',')
      .map((d) => d.trim())
      .filter((d) => d !== '' && d !== 'nothing configured'),
  }));
}

export function serviceMap(request: MessageCreateParamsNonStreaming): MappedService[] {
  const map = allResults(request).find((r) => r.includes('(service_map,'));
  return map ? servicesOf(map) : [];
}

/**
 * The service named first in what people and alerts said (`/investigate checkout latency`, an
 * alarm `payment-api-5xx is ALARM`), else the first one of the map.
 */
export function mainService(
  request: MessageCreateParamsNonStreaming,
  services: MappedService[],
): MappedService | undefined {
  const said = request.messages
    .flatMap((m) => (m.role === 'user' ? blocksOf(m) : []))
    .flatMap((b) => (b.type === 'text' ? promptLines(b.text).map((l) => l.text.toLowerCase()) : []))
    .join(' ');
  const named = services
    .map((service) => ({
      service,
      at: said.search(new RegExp(`\\b${service.name.replace(/[.-]/g, '\\$&')}\\b`)),
    }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at);
  return named[0]?.service ?? services[0];
}

/** The error-like events of a `query_logs` result, and when the first began. */
export function errorsOf(result: string): { count: number; first: number | undefined } {
  const patterns = result.split('Error patterns')[1]?.split(/\n[A-Z]/)[0] ?? '';
  let count = 0;
  let first: number | undefined;
  for (const m of patterns.matchAll(/^- (\d+)x \([^)]*\) \w+ (\S+)\.\./gm)) {
    count += Number(m[1]);
    const at = Date.parse(m[2] ?? '');
    if (Number.isFinite(at)) first = first === undefined ? at : Math.min(first, at);
  }
  return { count, first };
}
