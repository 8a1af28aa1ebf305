import { isErrorLike } from './error-patterns.ts';
import type { MinedRecords } from './mine.ts';
import { isoTime, type LogRecord } from './records.ts';

/** The anomaly, with the numbers that explain it. */
export interface Anomaly {
  type: 'spike' | 'new_error' | 'missing_logs' | 'pattern_change';
  description: string;
  severity: 'low' | 'medium' | 'high';
  /** ISO 8601 bounds of the window the anomaly is about. */
  timeWindow: { start: string; end: string };
  /** The template it is about; absent for a service's error rate as a whole. */
  templateId?: string;
  template?: string;
  /** The service whose error rate spiked (`spike` over all of a service's error-like lines). */
  service?: string;
  /** spike, pattern_change: lines per minute now and in the baseline, and the increase in percent (null from zero). */
  currentRate?: number;
  baselineRate?: number;
  percentIncrease?: number | null;
  /** new_error: lines in the window and the first of them. */
  count?: number;
  firstSeen?: string;
  sampleMessage?: string;
  /** missing_logs: when it was last seen and how often it came before. */
  lastSeen?: string;
  expectedIntervalMs?: number;
  /** pattern_change: its share of all lines now and in the baseline. */
  currentShare?: number;
  baselineShare?: number;
}

/** Options of `detectAnomalies`; times in milliseconds since the epoch. */
export interface AnomalyOptions {
  /** The end of the current window. @default the latest record's time */
  now?: number;
  /** The current window's length. @default 15 minutes */
  windowMs?: number;
  /** The baseline window's length, right before the current one. @default 60 minutes */
  baselineMs?: number;
  /** A spike needs at least this many lines in the window. @default 5 */
  minCount?: number;
  /** A spike is a rate at least this many times the baseline's. @default 3 */
  spikeFactor?: number;
  /** A periodic template is missing after this many intervals without it. @default 3 */
  missingAfterIntervals?: number;
  /** A template's share of all lines must move by this much (0..1) to be a pattern change. @default 0.2 */
  shareChange?: number;
}

interface Stats {
  current: number;
  baseline: number;
  /** Times seen in the baseline window, for periodicity. */
  baselineTimes: number[];
  last: number;
  errorLike: boolean;
  sample: string;
  firstCurrent: number;
}

const MINUTE = 60_000;
const round = (n: number) => Math.round(n * 100) / 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Compares a current window with the baseline window before it, per template: `spike` (the
 * rate rose by `spikeFactor` or more; also per service, over all its error-like lines), `new_error` (an error-like template present now and
 * absent from the baseline), `missing_logs` (a template that came at a steady interval in the
 * baseline and has not come for `missingAfterIntervals` intervals), `pattern_change` (a
 * template's share of all lines moved by `shareChange` or more). Records without a time are
 * left out. Most severe first.
 */
export function detectAnomalies(
  records: readonly LogRecord[],
  mined: MinedRecords,
  options: AnomalyOptions = {},
): Anomaly[] {
  const timed = records.flatMap((r, i) =>
    r.time === undefined ? [] : [{ r, t: r.time, id: mined.templateIds[i] as string }],
  );
  if (timed.length === 0) return [];
  const now = options.now ?? timed.reduce((max, x) => Math.max(max, x.t), Number.NEGATIVE_INFINITY);
  const windowMs = options.windowMs ?? 15 * MINUTE;
  const baselineMs = options.baselineMs ?? 60 * MINUTE;
  const minCount = options.minCount ?? 5;
  const spikeFactor = options.spikeFactor ?? 3;
  const start = now - windowMs;
  const baselineStart = start - baselineMs;
  const window = { start: isoTime(start), end: isoTime(now) };
  const stats = new Map<string, Stats>();
  let currentTotal = 0;
  let baselineTotal = 0;
  const services = new Map<string, { current: number; baseline: number; lines: number }>();
  for (const { r, t, id } of timed) {
    if (t < baselineStart || t > now) continue;
    let service = services.get(r.service);
    if (service === undefined) {
      service = { current: 0, baseline: 0, lines: 0 };
      services.set(r.service, service);
    }
    if (t < start) service.lines++;
    if (isErrorLike(r)) {
      if (t >= start) service.current++;
      else service.baseline++;
    }
    let s = stats.get(id);
    if (s === undefined) {
      s = {
        current: 0,
        baseline: 0,
        baselineTimes: [],
        last: t,
        errorLike: false,
        sample: r.message,
        firstCurrent: Infinity,
      };
      stats.set(id, s);
    }
    s.last = Math.max(s.last, t);
    if (t >= start) {
      s.current++;
      currentTotal++;
      if (t < s.firstCurrent) {
        s.firstCurrent = t;
        s.sample = r.message;
      }
      if (isErrorLike(r)) s.errorLike = true;
    } else {
      s.baseline++;
      baselineTotal++;
      s.baselineTimes.push(t);
    }
  }
  const out: Anomaly[] = [];
  for (const [id, s] of stats) {
    const template = mined.text.get(id) ?? '';
    const currentRate = round(s.current / (windowMs / MINUTE));
    const baselineRate = round(s.baseline / (baselineMs / MINUTE));
    if (s.current > 0 && s.baseline === 0 && s.errorLike && baselineTotal > 0) {
      out.push({
        type: 'new_error',
        description: `new error template: ${s.current} lines in the last ${windowMs / MINUTE} min, none in the ${baselineMs / MINUTE} min before: ${template}`,
        severity: s.current >= 10 ? 'high' : 'medium',
        timeWindow: window,
        templateId: id,
        template,
        count: s.current,
        firstSeen: isoTime(s.firstCurrent),
        sampleMessage: s.sample,
      });
    } else if (s.current >= minCount && s.baseline > 0 && currentRate >= spikeFactor * baselineRate) {
      const percentIncrease = Math.round(((currentRate - baselineRate) / baselineRate) * 100);
      out.push({
        type: 'spike',
        description: `${currentRate}/min now against ${baselineRate}/min in the baseline (+${percentIncrease}%): ${template}`,
        severity: currentRate >= 10 * baselineRate && s.errorLike ? 'high' : s.errorLike ? 'medium' : 'low',
        timeWindow: window,
        templateId: id,
        template,
        currentRate,
        baselineRate,
        percentIncrease,
      });
    }
    const missing = missingLogs(s, now, options.missingAfterIntervals ?? 3);
    if (missing !== undefined) {
      out.push({
        type: 'missing_logs',
        description: `expected every ${Math.round(missing / 1000)} s, last seen ${isoTime(s.last)} (${Math.round((now - s.last) / 1000)} s ago): ${template}`,
        severity: now - s.last >= 10 * missing ? 'high' : 'medium',
        timeWindow: { start: isoTime(s.last), end: isoTime(now) },
        templateId: id,
        template,
        lastSeen: isoTime(s.last),
        expectedIntervalMs: missing,
      });
    }
    if (currentTotal >= minCount && baselineTotal >= minCount) {
      const currentShare = s.current / currentTotal;
      const baselineShare = s.baseline / baselineTotal;
      if (Math.abs(currentShare - baselineShare) >= (options.shareChange ?? 0.2)) {
        out.push({
          type: 'pattern_change',
          description: `share of all lines ${Math.round(baselineShare * 100)}% -> ${Math.round(currentShare * 100)}%: ${template}`,
          severity: s.errorLike && currentShare > baselineShare ? 'medium' : 'low',
          timeWindow: window,
          templateId: id,
          template,
          currentRate,
          baselineRate,
          percentIncrease:
            baselineRate === 0 ? null : Math.round(((currentRate - baselineRate) / baselineRate) * 100),
          currentShare: round(currentShare),
          baselineShare: round(baselineShare),
        });
      }
    }
  }
  for (const [name, s] of services) {
    const currentRate = round(s.current / (windowMs / MINUTE));
    const baselineRate = round(s.baseline / (baselineMs / MINUTE));
    // A service that was logging in the baseline without errors and now errs counts too.
    if (s.current < minCount || s.lines === 0 || currentRate < spikeFactor * baselineRate) continue;
    const percentIncrease =
      s.baseline === 0 ? null : Math.round(((currentRate - baselineRate) / baselineRate) * 100);
    out.push({
      type: 'spike',
      description: `${name}: error-like lines ${currentRate}/min now against ${baselineRate}/min in the baseline (${percentIncrease === null ? 'none before' : `+${percentIncrease}%`})`,
      severity: percentIncrease === null || currentRate >= 10 * baselineRate ? 'high' : 'medium',
      timeWindow: window,
      service: name,
      currentRate,
      baselineRate,
      percentIncrease,
    });
  }
  const rank = { high: 0, medium: 1, low: 2 } as const;
  return out.sort((a, b) => rank[a.severity] - rank[b.severity]);
}

/** The expected interval when the template came steadily in the baseline and is overdue now; else undefined. */
function missingLogs(s: Stats, now: number, afterIntervals: number): number | undefined {
  if (s.baselineTimes.length < 4) return undefined;
  const times = [...s.baselineTimes].sort((a, b) => a - b);
  const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
  const interval = median(gaps);
  if (interval <= 0) return undefined;
  // Steady: most gaps within half an interval of the median.
  const steady = gaps.filter((g) => Math.abs(g - interval) <= interval / 2).length >= gaps.length * 0.75;
  return steady && now - s.last > afterIntervals * interval ? interval : undefined;
}
