import { type CallDeps, cap, isoMinute, type ToolOutcome } from './deps.ts';
import { QueryRefusedError } from './errors.ts';
import type { MetricSeries } from './sources.ts';
import type { QueryMetricsArgs } from './tools.ts';
import { isoRange, requireService, resolveWindow } from './window.ts';

/**
 * query_metrics: one service's metrics over a bounded window, summarized per series so the
 * model reads numbers that answer questions (how high, since when, compared with before)
 * instead of hundreds of datapoints: range, baseline against the latest values, the largest
 * level shift and when it happened, and the series downsampled to at most 24 points.
 */
export async function queryMetrics(args: QueryMetricsArgs, deps: CallDeps): Promise<ToolOutcome> {
  const { config } = deps;
  const service = requireService(config, args.service);
  const window = resolveWindow(args, config, deps.now());
  const sourceName = args.source ?? 'cloudwatch';
  const source = deps.metrics[sourceName];
  if (source === undefined)
    throw new QueryRefusedError('source_disabled', `the ${sourceName} metrics source is not enabled`);
  const available =
    sourceName === 'cloudwatch' ? (service.metrics?.names ?? []) : (service.datadog?.metrics ?? []);
  if (available.length === 0)
    throw new QueryRefusedError('invalid_query', `${service.name} has no ${sourceName} metrics configured`);
  const unknown = (args.metrics ?? []).filter((m) => !available.includes(m));
  if (unknown.length > 0)
    throw new QueryRefusedError(
      'invalid_query',
      `unknown metrics ${unknown.join(', ')} of ${service.name}; known: ${available.join(', ')}`,
    );
  const names = args.metrics ?? available;
  // About 60 points over the window unless asked otherwise, in whole minutes.
  const periodSeconds =
    args.periodSeconds ?? Math.max(60, Math.ceil((window.end - window.start) / 60_000 / 60) * 60);
  await deps.reserve();
  const series = await source.get({
    namespace: service.metrics?.namespace ?? '',
    dimensions: service.metrics?.dimensions ?? {},
    names,
    stat: args.stat,
    periodSeconds,
    start: window.start,
    end: window.end,
    service: service.datadog?.service ?? service.name,
  });
  const range = isoRange(window);
  const head = `${service.name} metrics (${source.name}, ${args.stat} per ${periodSeconds}s), ${range.start} .. ${range.end}.${window.note ? `\nNote: ${window.note}.` : ''}`;
  const blocks = series.map((s) => describeSeries(s));
  const where =
    sourceName === 'cloudwatch'
      ? `${source.name}:${service.metrics?.namespace}`
      : `${source.name}:service:${service.name}`;
  return {
    output: await cap(`${head}\n\n${blocks.map((b) => b.text).join('\n\n')}`, config.outputTokenBudget * 4),
    evidence: {
      source: where,
      query: `${names.join(',')} ${args.stat} ${periodSeconds}s ${JSON.stringify(service.metrics?.dimensions ?? {})}`,
      timeRange: range,
      summary: blocks
        .map((b) => b.summary)
        .join('; ')
        .slice(0, 1000),
    },
  };
}

const round = (n: number) => (Math.abs(n) >= 100 ? Math.round(n) : Math.round(n * 100) / 100);

/** The series in words and a few numbers. */
function describeSeries(series: MetricSeries): { text: string; summary: string } {
  const { name, timestamps, values } = series;
  if (values.length === 0)
    return { text: `${name}: no datapoints in the window.`, summary: `${name}: no data` };
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  let peak = 0;
  values.forEach((v, i) => {
    if (v > (values[peak] ?? v)) peak = i;
  });
  const min = values.reduce((m, v) => Math.min(m, v));
  const lines = [
    `${name}: ${values.length} points, min ${round(min)}, mean ${round(mean(values))}, max ${round(values[peak] ?? 0)} at ${isoMinute(timestamps[peak] ?? 0)}.`,
  ];
  let summary = `${name} max ${round(values[peak] ?? 0)} at ${isoMinute(timestamps[peak] ?? 0)}`;
  const shift = largestShift(values);
  if (shift !== undefined) {
    const before = mean(values.slice(0, shift));
    const after = mean(values.slice(shift));
    const change = before === 0 ? null : Math.round(((after - before) / Math.abs(before)) * 100);
    lines.push(
      `Largest level shift at ${isoMinute(timestamps[shift] ?? 0)}: mean ${round(before)} before, ${round(after)} after` +
        (change === null ? '.' : ` (${change >= 0 ? '+' : ''}${change}%).`),
    );
    summary += `; shift at ${isoMinute(timestamps[shift] ?? 0)} from ${round(before)} to ${round(after)}`;
  }
  const step = Math.max(1, Math.ceil(values.length / 24));
  const points: string[] = [];
  for (let i = 0; i < values.length; i += step) {
    const chunk = values.slice(i, i + step);
    points.push(`${isoMinute(timestamps[i] ?? 0).slice(11, 16)} ${round(mean(chunk))}`);
  }
  lines.push(`Series${step > 1 ? ` (mean of every ${step} points)` : ''}: ${points.join(', ')}`);
  return { text: lines.join('\n'), summary };
}

/**
 * Where the series splits into two levels most clearly: the split that maximizes the
 * between-group difference weighted by group sizes (the statistic of a single change-point,
 * as in a CUSUM test), reported only when that difference exceeds twice the spread within the
 * groups. Undefined for a flat or noisy series.
 */
function largestShift(values: readonly number[]): number | undefined {
  const n = values.length;
  if (n < 6) return undefined;
  const prefix = [0];
  for (const v of values) prefix.push((prefix.at(-1) ?? 0) + v);
  let best: { at: number; score: number } | undefined;
  for (let k = 2; k <= n - 2; k++) {
    const left = (prefix[k] ?? 0) / k;
    const right = ((prefix[n] ?? 0) - (prefix[k] ?? 0)) / (n - k);
    const score = Math.abs(right - left) * Math.sqrt((k * (n - k)) / n);
    if (best === undefined || score > best.score) best = { at: k, score };
  }
  if (best === undefined) return undefined;
  const at = best.at;
  const spread = (xs: readonly number[]) => {
    const m = xs.reduce((s, x) => s + x, 0) / xs.length;
    return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length);
  };
  const left = values.slice(0, at);
  const right = values.slice(at);
  const gap = Math.abs(
    right.reduce((s, x) => s + x, 0) / right.length - left.reduce((s, x) => s + x, 0) / left.length,
  );
  const noise = Math.max(spread(left), spread(right));
  return gap > 2 * noise && gap > 0 ? at : undefined;
}
