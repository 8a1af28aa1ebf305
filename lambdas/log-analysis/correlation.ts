import { isErrorLike } from './error-patterns.ts';
import { isoTime, type LogRecord, levelRank } from './records.ts';

/** Where to find a trace or request id in a record: a regular expression's first group, or a JSON field path. */
export type TraceExtractor = { name: string; pattern: RegExp } | { name: string; field: string };

/** `CorrelatedEvents`. */
export interface CorrelatedEvents {
  traceId?: string;
  events: Array<{ timestamp: string; service: string; message: string; level: string }>;
  /** The earliest error-like event: where the failure began. */
  rootEvent?: { service: string; message: string; timestamp: string };
  /** Services in the order the request reached them, repeats in a row folded (`api -> auth -> db`). */
  propagationPath: string[];
}

/** The forms of ids found in common logs, tried in this order. */
export const DEFAULT_EXTRACTORS: readonly TraceExtractor[] = [
  // W3C Trace Context: version-traceid-parentid-flags; the trace id is what every hop shares.
  { name: 'traceparent', pattern: /\b[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}\b/ },
  // AWS X-Ray: Root=1-<8 hex time>-<24 hex>.
  { name: 'xray', pattern: /\bRoot=(1-[0-9a-f]{8}-[0-9a-f]{24})\b/ },
  { name: 'trace_id', field: 'trace_id' },
  { name: 'traceId', field: 'traceId' },
  { name: 'trace.id', field: 'trace.id' },
  { name: 'request_id', field: 'request_id' },
  { name: 'requestId', field: 'requestId' },
  { name: 'correlation_id', field: 'correlation_id' },
  {
    name: 'text id',
    pattern: /\b(?:trace|request|req|correlation)[_-]?id["']?\s*[:=]\s*["']?([A-Za-z0-9][\w.:-]*)/i,
  },
  // Lambda's own lines: `RequestId: 8f5c...`.
  {
    name: 'lambda',
    pattern: /\bRequestId:\s*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/,
  },
];

/** Options of `correlateEvents`. */
export interface CorrelationOptions {
  /** @default DEFAULT_EXTRACTORS */
  extractors?: readonly TraceExtractor[];
  /** At most this many groups, those with errors and the largest first. @default 20 */
  maxGroups?: number;
  /** At most this many events per group (the earliest). @default 50 */
  maxEvents?: number;
}

function fieldAt(fields: Record<string, unknown> | undefined, path: string): unknown {
  let value: unknown = fields;
  for (const part of path.split('.')) {
    value =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (value === undefined && fields) value = fields[path];
  return value;
}

/** The trace or request id of a record, by the first extractor that finds one. */
export function extractTraceId(
  record: LogRecord,
  extractors: readonly TraceExtractor[] = DEFAULT_EXTRACTORS,
): string | undefined {
  for (const extractor of extractors) {
    if ('field' in extractor) {
      const value = fieldAt(record.fields, extractor.field);
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number') return String(value);
    } else {
      const match = extractor.pattern.exec(record.raw);
      if (match?.[1]) return match[1];
    }
  }
  return undefined;
}

/**
 * Groups records by trace or request id, orders each group by time, folds the services into
 * a propagation path and picks the earliest error-like event as the root. Records without an
 * id are left out.
 */
export function correlateEvents(
  records: readonly LogRecord[],
  options: CorrelationOptions = {},
): CorrelatedEvents[] {
  const extractors = options.extractors ?? DEFAULT_EXTRACTORS;
  const groups = new Map<string, { record: LogRecord; order: number }[]>();
  records.forEach((record, order) => {
    const id = extractTraceId(record, extractors);
    if (id === undefined) return;
    const group = groups.get(id);
    if (group) group.push({ record, order });
    else groups.set(id, [{ record, order }]);
  });
  const out: (CorrelatedEvents & { hasError: boolean })[] = [];
  for (const [traceId, group] of groups) {
    group.sort((a, b) => (a.record.time ?? 0) - (b.record.time ?? 0) || a.order - b.order);
    const propagationPath: string[] = [];
    for (const { record } of group) {
      if (propagationPath[propagationPath.length - 1] !== record.service)
        propagationPath.push(record.service);
    }
    const errors = group.filter(({ record }) => isErrorLike(record));
    // The earliest error; among errors at the same moment, the most severe.
    const root = errors.reduce<LogRecord | undefined>((best, { record }) => {
      if (best === undefined) return record;
      if ((record.time ?? 0) < (best.time ?? 0)) return record;
      return (record.time ?? 0) === (best.time ?? 0) && levelRank(record.level) > levelRank(best.level)
        ? record
        : best;
    }, undefined);
    const entry: CorrelatedEvents & { hasError: boolean } = {
      traceId,
      events: group.slice(0, options.maxEvents ?? 50).map(({ record }) => ({
        timestamp: isoTime(record.time),
        service: record.service,
        message: record.message,
        level: record.level,
      })),
      propagationPath,
      hasError: root !== undefined,
    };
    if (root)
      entry.rootEvent = { service: root.service, message: root.message, timestamp: isoTime(root.time) };
    out.push(entry);
  }
  return out
    .sort((a, b) => Number(b.hasError) - Number(a.hasError) || b.events.length - a.events.length)
    .slice(0, options.maxGroups ?? 20)
    .map(({ hasError: _, ...group }) => group);
}
