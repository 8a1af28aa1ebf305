import * as z from 'zod';

/** Severity levels, lowest first; `unknown` where a line names none. */
export const LEVELS = ['trace', 'debug', 'info', 'notice', 'warn', 'error', 'fatal'] as const;
export type Level = (typeof LEVELS)[number] | 'unknown';

/** A CloudWatch Logs event as `FilterLogEvents` returns it (only the fields used here). */
export const LogEventSchema = z.object({
  /** Milliseconds since the epoch. */
  timestamp: z.number().finite(),
  message: z.string(),
  logStreamName: z.string().optional(),
  logGroupName: z.string().optional(),
  /** Set by the caller when it knows the service better than the stream name does. */
  service: z.string().optional(),
});
export type LogEvent = z.infer<typeof LogEventSchema>;

/** What the analysis takes: CloudWatch-style events, plain text lines, or a mix. */
export const LogInputSchema = z.array(z.union([z.string(), LogEventSchema]));
export type LogInput = z.infer<typeof LogInputSchema>;

/** One log line once its header is read. */
export interface LogRecord {
  /** Milliseconds since the epoch, when the line or its event carried a time. */
  time?: number;
  level: Level;
  /** The service (program, logger, stream) the line came from; `unknown` when none is known. */
  service: string;
  /** The message without its header: what templates are mined from. */
  message: string;
  /** The line as it came. */
  raw: string;
  /** Fields of a JSON line (for trace and request ids). */
  fields?: Record<string, unknown>;
}

/** Orders levels: higher is more severe; `unknown` ranks with `info`. */
export function levelRank(level: Level): number {
  return level === 'unknown' ? LEVELS.indexOf('info') : LEVELS.indexOf(level);
}

/** ISO 8601 text of a record's time, or an empty string when it has none. */
export function isoTime(time: number | undefined): string {
  return time === undefined ? '' : new Date(time).toISOString();
}
