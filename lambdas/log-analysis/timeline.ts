import { isErrorLike } from './error-patterns.ts';
import type { MinedRecords } from './mine.ts';
import { isoTime, type LogRecord, levelRank } from './records.ts';

/** The timeline entry, with how many lines it stands for. */
export interface TimelineEntry {
  timestamp: string;
  /** The template of the event (its first message when it has no variable part). */
  event: string;
  service: string;
  severity: string;
  /** Lines folded into this entry (the same template and service, close in time). */
  count: number;
}

/** Options of `buildTimeline`. */
export interface TimelineOptions {
  /** Repeats of an entry's template and service within this long after it fold into it. @default 60000 */
  dedupeWindowMs?: number;
  /** @default 50 */
  maxEntries?: number;
}

/**
 * The key events of several services on one timeline: error-like lines and the first line of
 * every template, merged across services, ordered by time, repeats folded. Past `maxEntries`,
 * the most severe are kept. Records without a time are left out.
 */
export function buildTimeline(
  records: readonly LogRecord[],
  mined: MinedRecords,
  options: TimelineOptions = {},
): TimelineEntry[] {
  const dedupe = options.dedupeWindowMs ?? 60_000;
  const seenTemplates = new Set<string>();
  const candidates = records
    .map((record, i) => ({ record, id: mined.templateIds[i] as string, order: i }))
    .filter(
      (x): x is { record: LogRecord & { time: number }; id: string; order: number } =>
        x.record.time !== undefined,
    )
    .sort((a, b) => a.record.time - b.record.time || a.order - b.order);
  const entries: (TimelineEntry & { time: number; key: string; rank: number })[] = [];
  const open = new Map<string, TimelineEntry & { time: number }>();
  for (const { record, id } of candidates) {
    const key = `${record.service}\u0000${id}`;
    const first = !seenTemplates.has(id);
    seenTemplates.add(id);
    if (!first && !isErrorLike(record)) continue;
    const last = open.get(key);
    if (last && record.time - last.time <= dedupe) {
      last.count++;
      continue;
    }
    const entry = {
      timestamp: isoTime(record.time),
      event: mined.text.get(id) ?? record.message,
      service: record.service,
      severity: record.level,
      count: 1,
      time: record.time,
      key,
      rank: levelRank(record.level) + (isErrorLike(record) ? 10 : 0),
    };
    open.set(key, entry);
    entries.push(entry);
  }
  const max = options.maxEntries ?? 50;
  const kept =
    entries.length <= max
      ? entries
      : [...entries]
          .sort((a, b) => b.rank - a.rank || a.time - b.time)
          .slice(0, max)
          .sort((a, b) => a.time - b.time);
  return kept.map(({ timestamp, event, service, severity, count }) => ({
    timestamp,
    event,
    service,
    severity,
    count,
  }));
}
