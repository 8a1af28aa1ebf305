/**
 * A tool call as people read it in the timeline: `Searching code for "total"`,
 * `Reading src/cart.ts:40-80`, `Querying payment-api logs 20:00-20:15`. Titles are built from
 * the call's arguments by code (never by the model), cut to what Slack shows in one line.
 */

import { parseMcpToolName } from '../mcp/tool-names.ts';
import { oneLine } from './outcomes.ts';

/** The longest title shown; Slack's task titles are one line. */
const MAX_TITLE_CHARS = 120;

type Args = Record<string, unknown>;
type Titler = (args: Args) => string;

const TITLES: Record<string, Titler> = {
  search_code: (a) => `Searching code for ${searched(a)}${inPath(a.path_glob)}`,
  read_file: (a) => `Reading ${text(a.path) || 'a file'}${lineRange(a.start_line, a.end_line)}`,
  list_files: (a) =>
    `Listing ${text(a.path) || 'the repository'}${a.glob === undefined ? '' : ` (${text(a.glob)})`}`,
  write_file: (a) => `Editing ${text(a.path) || 'a file'}`,
  delete_file: (a) => `Deleting ${text(a.path) || 'a file'}`,
  get_diff: () => 'Reviewing the changes',
  query_logs: (a) => `Querying ${serviceOf(a)}logs${windowOf(a)}`,
  query_metrics: (a) => `Reading ${serviceOf(a)}metrics${windowOf(a)}`,
  recent_deployments: (a) => `Listing ${serviceOf(a)}deployments${windowOf(a)}`,
  service_map: (a) =>
    a.service === undefined ? 'Reading the service map' : `Reading the service map around ${text(a.service)}`,
  get_incident: (a) => `Reading PagerDuty incident ${text(a.incidentId)}`,
  get_bug_conversations: () => 'Reading the conversation so far',
};

/** The title of a call to `tool` with `args` (the model's arguments, unchecked). */
export function taskTitle(tool: string, args: unknown): string {
  const given = isRecord(args) ? args : {};
  const titler = TITLES[tool];
  const mcp = parseMcpToolName(tool);
  const title = titler
    ? titler(given)
    : mcp
      ? `Calling ${mcp.tool} on MCP server ${mcp.server}`
      : `Running ${tool.replaceAll('_', ' ')}`;
  return oneLine(title, MAX_TITLE_CHARS);
}

/** A regular expression only when it is short enough to read; a plain pattern, quoted and cut. */
const READABLE_REGEX_CHARS = 30;

function searched(args: Args): string {
  const pattern = text(args.pattern);
  if (args.regex === true && pattern.length > READABLE_REGEX_CHARS) return 'a pattern';
  return quoted(pattern);
}

function quoted(value: unknown): string {
  return `"${oneLine(text(value), 60)}"`;
}

function inPath(glob: unknown): string {
  return glob === undefined ? '' : ` in ${text(glob)}`;
}

function lineRange(start: unknown, end: unknown): string {
  const from = typeof start === 'number' ? start : undefined;
  const to = typeof end === 'number' ? end : undefined;
  if (from === undefined && to === undefined) return '';
  return `:${from ?? 1}-${to ?? ''}`.replace(/-$/, '-end');
}

function serviceOf(args: Args): string {
  return args.service === undefined ? '' : `${text(args.service)} `;
}

/** ` 20:00-20:15` (UTC) from since/until, or ` (last 30 min)`. */
function windowOf(args: Args): string {
  const since = clock(args.since);
  const until = clock(args.until);
  if (since !== undefined && until !== undefined) return ` ${since}-${until}`;
  if (since !== undefined) return ` since ${since}`;
  if (typeof args.lastMinutes === 'number') return ` (last ${args.lastMinutes} min)`;
  return '';
}

function clock(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString().slice(11, 16);
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isRecord(value: unknown): value is Args {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
