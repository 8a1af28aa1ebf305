import {
  type AnalyzeOptions,
  analyzeLogs,
  analyzeLogsWithReview,
  isErrorLike,
  type LogAnalysis,
  type LogEvent,
  parseLine,
} from '../../../log-analysis/index.ts';
import { safeCut } from '../../../redaction/index.ts';
import { type CallDeps, cap, type ToolOutcome } from './deps.ts';
import { QueryRefusedError } from './errors.ts';
import type { FetchedLogEvent, InsightsRows, LogsQuery, LogsSource } from './sources.ts';
import { ReviewBudgetSpentError } from './template-advisor.ts';
import type { QueryLogsArgs } from './tools.ts';
import { isoRange, type ResolvedWindow, requireService, resolveWindow } from './window.ts';

/**
 * query_logs: one service's logs over a bounded window, through the log analysis engine. The
 * model gets templates, error patterns, anomalies, correlations and a timeline within the
 * output budget, plus at most `maxExamples` raw lines (error-like ones first). A Logs Insights
 * query with `stats` answers rows, which are shown as a small table instead.
 */
export async function queryLogs(args: QueryLogsArgs, deps: CallDeps): Promise<ToolOutcome> {
  const { config } = deps;
  const service = requireService(config, args.service);
  const window = resolveWindow(args, config, deps.now());
  const sourceName = args.source ?? 'cloudwatch';
  const source = deps.logs[sourceName];
  if (source === undefined)
    throw new QueryRefusedError('source_disabled', `the ${sourceName} logs source is not enabled`);
  if (args.filterPattern !== undefined && args.insightsQuery !== undefined)
    throw new QueryRefusedError('invalid_query', 'give filterPattern or insightsQuery, not both');
  if (sourceName === 'cloudwatch' && service.logGroups.length === 0)
    throw new QueryRefusedError('invalid_query', `${service.name} has no CloudWatch log groups configured`);
  const limit = Math.min(args.maxEvents ?? config.maxEvents, config.maxEvents);
  const budget = config.outputTokenBudget * 4;
  const where =
    sourceName === 'cloudwatch'
      ? `${source.name}:${service.logGroups.join(',')}`
      : `${source.name}:service:${service.datadog?.service ?? service.name}`;

  if (args.insightsQuery !== undefined) {
    if (source.insights === undefined)
      throw new QueryRefusedError(
        'source_disabled',
        `${sourceName} has no Logs Insights queries; use filterPattern`,
      );
    await deps.reserve();
    const result = await source.insights({
      logGroups: service.logGroups,
      queryString: args.insightsQuery,
      start: window.start,
      end: window.end,
      limit,
    });
    const text = await insightsText(result, service.name, window, deps, budget);
    return {
      output: text.output,
      evidence: {
        source: where,
        query: `insights: ${args.insightsQuery}`,
        timeRange: isoRange(window),
        summary: text.summary,
      },
    };
  }

  await deps.reserve();
  const fetched = await readLatest(source, {
    service: service.name,
    logGroups: service.logGroups,
    ...(args.filterPattern !== undefined ? { pattern: args.filterPattern } : {}),
    start: window.start,
    end: window.end,
    limit,
  });
  const text = await eventsText(
    fetched.events,
    fetched,
    limit,
    window,
    deps,
    budget,
    describe(source, args.filterPattern),
  );
  return {
    output: text.output,
    evidence: {
      source: where,
      query: `filter: ${args.filterPattern ?? '(all events)'}`,
      timeRange: isoRange(window),
      summary: text.summary,
    },
  };
}

function describe(source: LogsSource, pattern: string | undefined): string {
  return `${source.name}${pattern ? ` matching ${JSON.stringify(pattern)}` : ''}`;
}

/** How a read was cut short by the cap: not at all, or to its latest events from `from` (or its earliest, without `from`). */
interface Cut {
  truncated: boolean;
  from?: number;
}

/**
 * A read within the cap. When more events match than the cap, the latest matter most in an
 * incident: the window is halved from its end (at most six times, never below a minute) until
 * what it holds fits, and those events, all of them from `from` to the end, are analyzed. When
 * even that does not fit, the earliest events of the window are.
 */
async function readLatest(
  source: LogsSource,
  query: LogsQuery,
): Promise<{ events: FetchedLogEvent[] } & Cut> {
  const first = await source.filter(query);
  if (!first.truncated) return first;
  let span = query.end - query.start;
  for (let halvings = 0; halvings < 6; halvings++) {
    span = Math.floor(span / 2);
    if (span < 60_000) break;
    const part = await source.filter({ ...query, start: query.end - span });
    if (!part.truncated) return { events: part.events, truncated: true, from: query.end - span };
  }
  return first;
}

async function eventsText(
  events: readonly FetchedLogEvent[],
  cut: Cut,
  limit: number,
  window: ResolvedWindow,
  deps: CallDeps,
  budget: number,
  what: string,
): Promise<{ output: string; summary: string }> {
  const range = isoRange(window);
  const { truncated } = cut;
  const covered =
    cut.from === undefined
      ? `the earliest ${events.length} of the window`
      : `the latest ${events.length}, every event from ${new Date(cut.from).toISOString()} to the end`;
  const lines = [
    `${truncated ? 'More than ' : ''}${truncated ? limit : events.length} events from ${what}, ${range.start} .. ${range.end}.` +
      (truncated
        ? ` That is more than the cap: the analysis covers ${covered}; narrow the window or the pattern for the rest.`
        : ''),
  ];
  if (window.note) lines.push(`Note: ${window.note}.`);
  if (events.length === 0) {
    const summary = `no events ${what}`;
    return { output: lines.join('\n'), summary };
  }
  const input: LogEvent[] = events.map((e) => ({
    timestamp: e.timestamp,
    message: e.message,
    service: e.service,
    ...(e.stream ? { logStreamName: e.stream } : {}),
  }));
  const examples = await pickExamples(events, deps.config.maxExamples);
  const exampleText =
    examples.length === 0
      ? ''
      : `\n\nExample lines (${examples.length} of ${events.length}):\n${examples.join('\n')}`;
  const options: AnalyzeOptions = {
    summary: {
      tokenBudget: Math.max(
        100,
        Math.floor((budget - lines.join('\n').length - exampleText.length - 100) / 4),
      ),
    },
    anomalies: anomalyWindows(
      cut.from === undefined ? window : { ...window, start: cut.from },
      truncated && cut.from === undefined ? (events.at(-1)?.timestamp ?? window.end) : window.end,
    ),
    correlation: { maxGroups: 5 },
  };
  const { analysis, reviewNote } = await analyze(input, options, deps);
  if (reviewNote) lines.push(reviewNote);
  const top = analysis.errorPatterns[0];
  const anomaly = analysis.anomalies[0];
  const summary = [
    `${truncated ? `more than ${limit}` : events.length} events ${what}${cut.from !== undefined ? ` (analyzed from ${new Date(cut.from).toISOString()})` : ''}`,
    top
      ? `top error pattern ${top.count}x "${top.pattern.slice(0, 120)}" (${top.firstSeen}..${top.lastSeen})`
      : 'no error patterns',
    anomaly ? `anomaly: ${anomaly.type} ${anomaly.description.slice(0, 160)}` : 'no anomalies',
  ].join('; ');
  return {
    output: await cap(`${lines.join('\n')}\n\n${analysis.summary}${exampleText}`, budget),
    summary: summary.slice(0, 1000),
  };
}

/**
 * The analysis, with the model's review of the uncertain templates when the configuration
 * enables it and the function has a model (`deps.templateReview`). The review is help, never
 * required: when the model call fails, the miner's own templates are used and the note says so.
 */
async function analyze(
  input: LogEvent[],
  options: AnalyzeOptions,
  deps: CallDeps,
): Promise<{ analysis: LogAnalysis; reviewNote?: string }> {
  const settings = deps.config.logTemplateReview;
  const review = deps.templateReview;
  if (!settings.enabled || review === undefined || deps.conversationId === undefined)
    return { analysis: analyzeLogs(input, options) };
  try {
    const reviewed = await analyzeLogsWithReview(input, {
      ...options,
      review: {
        advisor: review.advisorFor(deps.conversationId),
        cache: review.cache,
        maxTemplates: settings.maxTemplates,
        maxEvidence: settings.maxEvidence,
      },
    });
    const { asked, cached, applied } = reviewed.review;
    const reviewNote =
      asked + cached === 0
        ? undefined
        : `Templates reviewed by the model: ${asked} asked, ${cached} answered before, ${applied} corrected or merged.`;
    return { analysis: reviewed.analysis, ...(reviewNote ? { reviewNote } : {}) };
  } catch (error) {
    const what = error instanceof ReviewBudgetSpentError ? 'was not made' : 'failed';
    return {
      analysis: analyzeLogs(input, options),
      reviewNote: `The model's review of the templates ${what} (${(error as Error).message.slice(0, 200)}); the templates are the miner's own.`,
    };
  }
}

/**
 * The anomaly detector's windows within what was read: the current window a quarter of it (1
 * to 15 minutes) before `readUntil`, the baseline the rest (at most an hour). Its defaults
 * (15 minutes against the hour before) would count the part of the baseline before the query's
 * start as silence and report a steady rate as a spike. `readUntil` is the last event's time
 * when the cap cut the read short, so the current window is not empty for that reason.
 */
function anomalyWindows(window: ResolvedWindow, readUntil: number) {
  const span = Math.max(60_000, readUntil - window.start);
  const windowMs = Math.min(15 * 60_000, Math.max(60_000, Math.floor(span / 4)));
  return { now: readUntil, windowMs, baselineMs: Math.max(60_000, Math.min(60 * 60_000, span - windowMs)) };
}

/**
 * Error-like lines first (one per distinct text), then the latest others; each cut to 300
 * characters, never inside a secret or personal value the redaction layer finds.
 */
async function pickExamples(events: readonly FetchedLogEvent[], max: number): Promise<string[]> {
  if (max === 0) return [];
  const seen = new Set<string>();
  const picked: FetchedLogEvent[] = [];
  const consider = (e: FetchedLogEvent) => {
    const key = e.message.replace(/\d+/g, '#').slice(0, 80);
    if (picked.length >= max || seen.has(key)) return;
    seen.add(key);
    picked.push(e);
  };
  for (const e of events) if (isErrorLike(parseLine(e.message, { service: e.service }))) consider(e);
  for (let i = events.length - 1; i >= 0 && picked.length < max; i--) consider(events[i] as FetchedLogEvent);
  return Promise.all(
    picked
      .sort((a, b) => a.timestamp - b.timestamp)
      .map(async (e) => `- ${new Date(e.timestamp).toISOString()} ${await shortened(e.message)}`),
  );
}

async function shortened(message: string): Promise<string> {
  if (message.length <= 300) return message;
  return `${message.slice(0, await safeCut(message, 299, 'head'))}…`;
}

async function insightsText(
  result: InsightsRows,
  service: string,
  window: ResolvedWindow,
  deps: CallDeps,
  budget: number,
): Promise<{ output: string; summary: string }> {
  const hasMessages = result.rows.some((row) => row['@message'] !== undefined);
  if (hasMessages) {
    const events: FetchedLogEvent[] = result.rows.map((row) => ({
      timestamp: Date.parse(`${(row['@timestamp'] ?? '').replace(' ', 'T')}Z`) || window.end,
      message: row['@message'] ?? '',
      service,
      ...(row['@logStream'] ? { stream: row['@logStream'] } : {}),
    }));
    events.sort((a, b) => a.timestamp - b.timestamp);
    return eventsText(
      events,
      { truncated: false },
      events.length,
      window,
      deps,
      budget,
      'a Logs Insights query',
    );
  }
  const range = isoRange(window);
  const head = `Logs Insights: ${result.rows.length} rows (${result.recordsMatched ?? '?'} records matched of ${result.recordsScanned ?? '?'} scanned), ${range.start} .. ${range.end}.${window.note ? `\nNote: ${window.note}.` : ''}`;
  const shown = result.rows.slice(0, 60).map(
    (row) =>
      `- ${Object.entries(row)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
  );
  const more =
    result.rows.length > shown.length ? `\n(${result.rows.length - shown.length} more rows left out)` : '';
  return {
    output: await cap(`${head}\n${shown.join('\n')}${more}`, budget),
    summary: `${result.rows.length} Insights rows; first: ${shown[0]?.slice(2, 200) ?? 'none'}`,
  };
}
