/**
 * CloudWatch metrics in memory: datapoints per metric (namespace, name, dimensions) and the
 * statistics `GetMetricData` computes over periods. A metric is identified by its exact
 * dimension set, as in CloudWatch: asking with fewer dimensions finds nothing.
 */

export interface Dimension {
  Name: string;
  Value: string;
}

export interface MetricId {
  namespace: string;
  name: string;
  dimensions: readonly Dimension[];
}

interface Datapoint {
  /** Milliseconds since the epoch. */
  time: number;
  value: number;
  /** How many samples the value stands for (PutMetricData's `Counts`). */
  count: number;
}

/** The statistics this emulator computes: CloudWatch's five and percentiles `p0`..`p100`. */
export const STAT = /^(Average|Sum|Minimum|Maximum|SampleCount|p(\d{1,2}(\.\d+)?|100))$/;

export function metricKey(id: MetricId): string {
  const dims = [...id.dimensions]
    .sort((a, b) => a.Name.localeCompare(b.Name))
    .map((d) => `${d.Name}=${d.Value}`);
  return `${id.namespace}\u0000${id.name}\u0000${dims.join('\u0000')}`;
}

export class LocalMetrics {
  private readonly series = new Map<string, Datapoint[]>();

  put(id: MetricId, time: number, value: number, count = 1): void {
    const key = metricKey(id);
    let points = this.series.get(key);
    if (points === undefined) {
      points = [];
      this.series.set(key, points);
    }
    points.push({ time, value, count });
  }

  /**
   * One statistic per period over [start, end): periods aligned to multiples of the period
   * since the epoch, periods without data left out, newest first unless `ascending`.
   */
  statistics(
    id: MetricId,
    options: { start: number; end: number; periodSeconds: number; stat: string; ascending: boolean },
  ): { timestamps: number[]; values: number[] } {
    const periodMs = options.periodSeconds * 1000;
    const buckets = new Map<number, Datapoint[]>();
    for (const point of this.series.get(metricKey(id)) ?? []) {
      if (point.time < options.start || point.time >= options.end) continue;
      const bucket = Math.floor(point.time / periodMs) * periodMs;
      const list = buckets.get(bucket) ?? [];
      list.push(point);
      buckets.set(bucket, list);
    }
    const times = [...buckets.keys()].sort((a, b) => (options.ascending ? a - b : b - a));
    return { timestamps: times, values: times.map((t) => statistic(buckets.get(t) ?? [], options.stat)) };
  }
}

function statistic(points: readonly Datapoint[], stat: string): number {
  const samples = points.reduce((n, p) => n + p.count, 0);
  const sum = points.reduce((s, p) => s + p.value * p.count, 0);
  switch (stat) {
    case 'Sum':
      return sum;
    case 'SampleCount':
      return samples;
    case 'Average':
      return sum / samples;
    case 'Minimum':
      return points.reduce((m, p) => Math.min(m, p.value), Number.POSITIVE_INFINITY);
    case 'Maximum':
      return points.reduce((m, p) => Math.max(m, p.value), Number.NEGATIVE_INFINITY);
    default: {
      // Nearest-rank percentile over the samples, each value repeated by its count.
      const sorted = [...points].sort((a, b) => a.value - b.value);
      const rank = Math.max(1, Math.ceil((Number(stat.slice(1)) / 100) * samples));
      let seen = 0;
      for (const p of sorted) {
        seen += p.count;
        if (seen >= rank) return p.value;
      }
      return sorted.at(-1)?.value ?? Number.NaN;
    }
  }
}
