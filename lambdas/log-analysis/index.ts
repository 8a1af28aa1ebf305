/**
 * The log analysis engine: template mining, error patterns, anomalies, correlation, timeline
 * and a summary for a model, over CloudWatch `FilterLogEvents`-style events or plain text
 * lines. Pure TypeScript: no AWS or Slack SDK; the incident workflow's tools wrap it.
 *
 * Start with `analyzeLogs`; the parts are exported for callers that need one.
 */
import { type Anomaly, type AnomalyOptions, detectAnomalies } from './anomalies.ts';
import { type CorrelatedEvents, type CorrelationOptions, correlateEvents } from './correlation.ts';
import { type ErrorPattern, type ErrorPatternOptions, extractErrorPatterns } from './error-patterns.ts';
import { type ParseOptions, parseInput } from './headers.ts';
import { type MinedRecords, mineRecords } from './mine.ts';
import { isoTime, type LogRecord } from './records.ts';
import { type SummaryOptions, summarize } from './summary.ts';
import type { MinedTemplate } from './template-groups.ts';
import type { MinerOptions } from './template-miner.ts';
import { type ReviewOptions, reviewTemplates, type TemplateReview } from './template-review.ts';
import { buildTimeline, type TimelineEntry, type TimelineOptions } from './timeline.ts';

export type { Anomaly, AnomalyOptions } from './anomalies.ts';
export { detectAnomalies } from './anomalies.ts';
export type { CorrelatedEvents, CorrelationOptions, TraceExtractor } from './correlation.ts';
export { correlateEvents, DEFAULT_EXTRACTORS, extractTraceId } from './correlation.ts';
export type { ErrorPattern, ErrorPatternOptions } from './error-patterns.ts';
export { extractErrorPatterns, isErrorLike } from './error-patterns.ts';
export { InvalidLogInputError, UnknownTemplateGroupError } from './errors.ts';
export type { ParseOptions } from './headers.ts';
export { parseInput, parseLine } from './headers.ts';
export type { MaskingRule } from './mask.ts';
export { WILDCARD } from './mask.ts';
export type { MinedRecords } from './mine.ts';
export type { Level, LogEvent, LogInput, LogRecord } from './records.ts';
export { LogEventSchema, LogInputSchema } from './records.ts';
export type { SummaryInput, SummaryOptions } from './summary.ts';
export { summarize } from './summary.ts';
export type { MinedTemplate } from './template-groups.ts';
export type { MinerOptions } from './template-miner.ts';
export { TemplateMiner } from './template-miner.ts';
export type {
  AdvisorUsage,
  ReviewOptions,
  TemplateAdvisor,
  TemplateReview,
} from './template-review.ts';
export {
  ADVISOR_PROMPT_START,
  parseAdvisorReply,
  TemplateReviewCache,
  templatePattern,
} from './template-review.ts';
export type { TimelineEntry, TimelineOptions } from './timeline.ts';
export { buildTimeline } from './timeline.ts';

/** `LogAnalysis`, with the templates, correlation and a ready summary added. */
export interface LogAnalysis {
  lineCount: number;
  timeRange?: { start: string; end: string };
  services: string[];
  /** The `maxTemplates` most frequent templates. */
  templates: MinedTemplate[];
  errorPatterns: ErrorPattern[];
  anomalies: Anomaly[];
  correlated: CorrelatedEvents[];
  timeline: TimelineEntry[];
  /** The analysis as text within `summary.tokenBudget`. */
  summary: string;
}

/** Options of `analyzeLogs`; each part's options pass through. */
export interface AnalyzeOptions {
  parse?: Omit<ParseOptions, 'time'>;
  miner?: MinerOptions;
  errorPatterns?: ErrorPatternOptions;
  anomalies?: AnomalyOptions;
  correlation?: CorrelationOptions;
  timeline?: TimelineOptions;
  summary?: SummaryOptions;
  /** @default 50 */
  maxTemplates?: number;
}

/**
 * Analyzes a batch of log events or lines (validated; `InvalidLogInputError` otherwise):
 * headers read, templates mined, error patterns, anomalies, correlation by trace id, a
 * timeline, and a summary for a model within a token budget.
 */
export function analyzeLogs(input: unknown, options: AnalyzeOptions = {}): LogAnalysis {
  const records = parseInput(input, options.parse);
  return analyzeMined(records, mineRecords(records, options.miner), options);
}

/**
 * `analyzeLogs` with the model review of uncertain templates (`reviewTemplates`) between the
 * mining and the rest; returns the review's counts beside the analysis, for the caller's
 * ledger. Only for callers that configured an advisor: `analyzeLogs` never calls a model.
 */
export async function analyzeLogsWithReview(
  input: unknown,
  options: AnalyzeOptions & { review: ReviewOptions },
): Promise<{ analysis: LogAnalysis; review: Omit<TemplateReview, 'mined'> }> {
  const records = parseInput(input, options.parse);
  const { mined, ...review } = await reviewTemplates(
    records.map((r) => r.message),
    mineRecords(records, options.miner),
    options.review,
  );
  return { analysis: analyzeMined(records, mined, options), review };
}

function analyzeMined(records: LogRecord[], mined: MinedRecords, options: AnalyzeOptions): LogAnalysis {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const services = new Set<string>();
  for (const r of records) {
    services.add(r.service);
    if (r.time !== undefined) {
      first = Math.min(first, r.time);
      last = Math.max(last, r.time);
    }
  }
  const analysis: Omit<LogAnalysis, 'summary'> = {
    lineCount: records.length,
    services: [...services],
    templates: mined.templates.slice(0, options.maxTemplates ?? 50),
    errorPatterns: extractErrorPatterns(records, mined, options.errorPatterns),
    anomalies: detectAnomalies(records, mined, options.anomalies),
    correlated: correlateEvents(records, options.correlation),
    timeline: buildTimeline(records, mined, options.timeline),
  };
  if (Number.isFinite(first)) analysis.timeRange = { start: isoTime(first), end: isoTime(last) };
  const summaryInput = { ...analysis, templates: mined.templates, samples: mined.samples };
  return { ...analysis, summary: summarize(summaryInput, options.summary) };
}
