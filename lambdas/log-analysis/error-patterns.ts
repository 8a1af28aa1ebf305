import type { MinedRecords } from './mine.ts';
import { isoTime, type Level, type LogRecord, levelRank } from './records.ts';

/** `LogAnalysis.errorPatterns` entry, with the template id and level added. */
export interface ErrorPattern {
  /** The template (variable parts `<*>`). */
  pattern: string;
  templateId: string;
  count: number;
  /** ISO 8601; empty when no line of it had a time. */
  firstSeen: string;
  lastSeen: string;
  /** Up to `maxSamples` distinct messages, earliest first. */
  sampleMessages: string[];
  affectedServices: string[];
  /** The most severe level among its lines (`unknown` when selected by wording alone). */
  level: Level;
}

/** Options of `extractErrorPatterns`. */
export interface ErrorPatternOptions {
  /** @default 3 */
  maxSamples?: number;
  /** @default 20 */
  maxPatterns?: number;
}

/** Words that mark a message as an error whatever its level says (or when it has none). */
const ERROR_WORDING =
  /\b(?:error|errors|exception|fail|failed|failure|failures|fatal|panic|timeout|timed out|refused|denied|unable|cannot|can't|could not|abort|aborted|crash|crashed|killed|unreachable|severed|broken|invalid|traceback|oom|out of memory)\b/i;

/** True when a line is error-like: level warn or worse, or error wording in its message. */
export function isErrorLike(record: Pick<LogRecord, 'level' | 'message'>): boolean {
  return levelRank(record.level) >= levelRank('warn') || ERROR_WORDING.test(record.message);
}

/**
 * The error-like templates of a batch: per template its count, first and last time, a few
 * sample messages, the services it came from and its level; most severe first, then most frequent.
 */
export function extractErrorPatterns(
  records: readonly LogRecord[],
  mined: MinedRecords,
  options: ErrorPatternOptions = {},
): ErrorPattern[] {
  const maxSamples = options.maxSamples ?? 3;
  const byTemplate = new Map<string, ErrorPattern & { first: number; last: number }>();
  records.forEach((record, i) => {
    if (!isErrorLike(record)) return;
    const id = mined.templateIds[i] as string;
    let entry = byTemplate.get(id);
    if (entry === undefined) {
      entry = {
        pattern: mined.text.get(id) ?? record.message,
        templateId: id,
        count: 0,
        firstSeen: '',
        lastSeen: '',
        sampleMessages: [],
        affectedServices: [],
        level: record.level,
        first: Number.POSITIVE_INFINITY,
        last: Number.NEGATIVE_INFINITY,
      };
      byTemplate.set(id, entry);
    }
    entry.count++;
    if (record.time !== undefined) {
      entry.first = Math.min(entry.first, record.time);
      entry.last = Math.max(entry.last, record.time);
    }
    if (entry.sampleMessages.length < maxSamples && !entry.sampleMessages.includes(record.message)) {
      entry.sampleMessages.push(record.message);
    }
    if (!entry.affectedServices.includes(record.service)) entry.affectedServices.push(record.service);
    if (levelRank(record.level) > levelRank(entry.level) || entry.level === 'unknown') {
      if (record.level !== 'unknown') entry.level = record.level;
    }
  });
  return [...byTemplate.values()]
    .sort((a, b) => levelRank(b.level) - levelRank(a.level) || b.count - a.count)
    .slice(0, options.maxPatterns ?? 20)
    .map(({ first, last, ...pattern }) => ({
      ...pattern,
      firstSeen: Number.isFinite(first) ? isoTime(first) : '',
      lastSeen: Number.isFinite(last) ? isoTime(last) : '',
    }));
}
