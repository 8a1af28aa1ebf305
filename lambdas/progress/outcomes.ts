/**
 * A task's outcome as people read it in the timeline: one short line built by code from the
 * tool's answer (`12 matches in 4 files`, `src/cart.ts lines 40-80`, `1,469 lines, 3 error
 * patterns, first at 20:03`). The answer itself is written for the model (a ref header, an
 * evidence id to cite, JSON lines, query budgets); none of that is shown. Every outcome line
 * is made here, so a further piece (a count of redacted values) has one place to go.
 */

/** The longest one-line outcome of a task. */
const MAX_OUTCOME_CHARS = 200;

type Args = Record<string, unknown>;
/** Reads one tool's answer; undefined when the answer is not in the shape it knows. */
type OutcomeReader = (output: string, args: Args) => string | undefined;

const READERS: Record<string, OutcomeReader> = {
  search_code: searchOutcome,
  read_file: readOutcome,
  list_files: (output) => {
    const count = /^\[[^\]]*\] (\d+) path\(s\)/m.exec(output)?.[1];
    return count === undefined ? undefined : counted(Number(count), 'file');
  },
  write_file: (output) => {
    if (output.startsWith('No change:')) return 'no change';
    const wrote = /: (created|wrote) (\S+) \((\d+) lines/.exec(output);
    return wrote ? `${wrote[1]} ${wrote[2]} (${counted(Number(wrote[3]), 'line')})` : undefined;
  },
  delete_file: (output) => /: (deleted \S+?)\.?$/m.exec(output)?.[1],
  get_diff: (output) => {
    if (output.startsWith('No changes yet')) return 'no changes yet';
    const diff = /is (\d+) commit\(s\) ahead .*?; (\d+) file\(s\) changed/.exec(output);
    return diff
      ? `${counted(Number(diff[2]), 'file')} changed in ${counted(Number(diff[1]), 'commit')}`
      : undefined;
  },
  query_logs: logsOutcome,
  query_metrics: metricsOutcome,
  recent_deployments: (output) => {
    const count = /^(\d+) deployments of /m.exec(output)?.[1];
    return count === undefined ? undefined : counted(Number(count), 'deployment');
  },
  service_map: (output) => {
    const count = /^(\d+) services\.$/m.exec(output)?.[1];
    if (count !== undefined) return counted(Number(count), 'service');
    return /^(\S+) and its neighbours\.$/m.exec(output) ? 'the service and its neighbours' : undefined;
  },
  get_incident: (output) => {
    const status = /^status (\w+)/m.exec(output)?.[1];
    return status === undefined ? undefined : `status ${status}`;
  },
  get_bug_conversations: (output) => {
    if (output.startsWith('No ')) return 'no messages';
    const count = output.split('\n').filter((line) => /^\[\d\d:\d\d:\d\d\] /.test(line)).length;
    const more = /\[more: call /.test(output) ? ', more to read' : '';
    return count === 0 ? undefined : `${counted(count, 'message')}${more}`;
  },
};

/**
 * How a call to `tool` with `args` ended, in one line: the tool's own reading of its answer,
 * else the answer's first line that is meant for people, else `done` (`failed` for a failure
 * with nothing readable).
 */
export function taskOutcome(tool: string, args: unknown, output: string, failed: boolean): string {
  const given = isRecord(args) ? args : {};
  const read = failed ? undefined : READERS[tool]?.(output, given);
  return oneLine(read ?? firstReadableLine(output) ?? (failed ? 'failed' : 'done'), MAX_OUTCOME_CHARS);
}

/** Collapses whitespace and cuts to `max` characters with an ellipsis. */
export function oneLine(value: string, max: number): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** `[S of M matching lines shown, F file(s) with matches, N searched]` */
function searchOutcome(output: string): string | undefined {
  const summary =
    /\[\d+ of (\d+)(\+?) matching lines shown, (\d+) file\(s\) with matches, (\d+) searched\]/.exec(output);
  if (!summary) {
    const none = /^No matches for .* in (\d+) file\(s\)\./m.exec(output)?.[1];
    return none === undefined ? undefined : `no matches in ${counted(Number(none), 'file')}`;
  }
  const [, matches, more, files, searched] = summary;
  if (Number(matches) === 0) return `no matches in ${counted(Number(searched), 'file')}`;
  return `${Number(matches).toLocaleString('en-US')}${more} ${Number(matches) === 1 ? 'match' : 'matches'} in ${counted(Number(files), 'file')}`;
}

/** `<path>: <total> lines, <size>` after the ref: the range read, as people say it. */
function readOutcome(output: string, args: Args): string | undefined {
  const header = /^\[[^\]]*\] (.+?): (?:(\d+) lines, |empty file)/.exec(output);
  if (!header) return undefined;
  const path = (header[1] ?? '').replace(/ \(via symbolic link: .*\)$/, '');
  if (header[2] === undefined) return `${path} (empty)`;
  const total = Number(header[2]);
  const start = typeof args.start_line === 'number' ? args.start_line : 1;
  const end = Math.min(typeof args.end_line === 'number' ? args.end_line : total, total);
  if (start === 1 && end === total) return `${path}, all ${counted(total, 'line')}`;
  return `${path} lines ${start}-${end}`;
}

/**
 * `N events from ...` and the analysis under it: how many lines, how many error patterns, and
 * when the first began (UTC clock time).
 */
function logsOutcome(output: string): string | undefined {
  const events = /^(More than )?(\d+) events from /m.exec(output);
  if (!events) return undefined;
  const count = Number(events[2]);
  if (count === 0) return 'no log lines';
  const lines = `${events[1] ? 'more than ' : ''}${counted(count, 'line')}`;
  const section = /\n\nError patterns[^\n]*:\n((?:(?:- | {2}|\().*\n?)*)/.exec(output)?.[1] ?? '';
  const patterns = [...section.matchAll(/^- \d+x(?: \([^)]*\))? \S+ (\S+?)\.\./gm)];
  const leftOut = Number(/^\((\d+) more left out\)/m.exec(section)?.[1] ?? 0);
  if (patterns.length === 0) return `${lines}, no error patterns`;
  const first = patterns
    .map((p) => p[1] ?? '')
    .filter((at) => !Number.isNaN(Date.parse(at)))
    .sort()[0];
  const when = first === undefined ? '' : `, first at ${new Date(first).toISOString().slice(11, 16)}`;
  return `${lines}, ${counted(patterns.length + leftOut, 'error pattern')}${when}`;
}

/** `<metric>: N points, min a, mean b, max c at <time>.`: each series' peak. */
function metricsOutcome(output: string): string | undefined {
  const series = [...output.matchAll(/^(\S+): \d+ points, .*?max (\S+) at (\S+?)\.?$/gm)];
  const empty = [...output.matchAll(/^(\S+): no datapoints in the window\.$/gm)];
  if (series.length === 0) return empty.length > 0 ? 'no datapoints' : undefined;
  const peaks = series.map((s) => `${s[1]} max ${s[2]} at ${clockOf(s[3] ?? '')}`);
  return peaks.length <= 2 ? peaks.join('; ') : `${peaks.slice(0, 2).join('; ')}; ${peaks.length - 2} more`;
}

/**
 * The first line meant for people: not the evidence header or the query budget (for the
 * model), not a ref header in brackets, not a separator, not JSON.
 */
function firstReadableLine(output: string): string | undefined {
  for (const raw of output.split('\n')) {
    const line = raw
      .replace(/^\s*Evidence ev-\d+ \([^)]*\)\.\s*Cite it as ev-\d+\.\s*(Queries used[^.]*\.)?/, '')
      .replace(/^\s*\[?ev-\d+\]?:?\s*/, '')
      .replace(/^\s*\[[^\]]*\bat [0-9a-f]{7,40}\]\s*/, '')
      .trim();
    if (line === '' || /^[-=#*]{3,}.*[-=#*]{3,}$/.test(line)) continue;
    if (/^[{[]/.test(line)) continue;
    return line.replace(/^[-=#*_\s]+|[-=#*_\s]+$/g, '');
  }
  return undefined;
}

function counted(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

function clockOf(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().slice(11, 16);
}

function isRecord(value: unknown): value is Args {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
