import * as z from 'zod';
import type { DatadogCredentials } from './credentials.ts';
import { requestJson } from './http-json.ts';
import type {
  FetchedLogEvent,
  LogsQuery,
  LogsSource,
  MetricSeries,
  MetricsQuery,
  MetricsSource,
} from './sources.ts';

/**
 * Datadog behind the same ports as CloudWatch, through its public HTTP APIs:
 * - logs: `POST /api/v2/logs/events/search` (Logs Search API), the query prefixed with the
 *   service's `service:` tag, pages of up to 1000 followed by `meta.page.after`;
 * - metrics: `GET /api/v1/query` (timeseries points), `<agg>:<metric>{service:<name>}.rollup(<agg>, <period>)`.
 * Authenticated with `DD-API-KEY` and `DD-APPLICATION-KEY`. The base URL is the site's API host
 * (`https://api.datadoghq.com`, `https://api.datadoghq.eu`...).
 */

const LogsPage = z.object({
  data: z
    .array(
      z.object({
        id: z.string().optional(),
        attributes: z.object({
          timestamp: z.string(),
          message: z.string().optional(),
          service: z.string().optional(),
          status: z.string().optional(),
          host: z.string().optional(),
        }),
      }),
    )
    .default([]),
  meta: z.object({ page: z.object({ after: z.string().optional() }).optional() }).optional(),
});

const MetricsAnswer = z.object({
  status: z.string().optional(),
  series: z
    .array(
      z.object({
        metric: z.string().optional(),
        pointlist: z.array(z.tuple([z.number(), z.number().nullable()])),
      }),
    )
    .default([]),
});

const AGGREGATIONS: Record<string, string> = {
  Average: 'avg',
  Sum: 'sum',
  Maximum: 'max',
  Minimum: 'min',
  SampleCount: 'count',
};

export class DatadogSource implements LogsSource, MetricsSource {
  readonly name = 'datadog';

  constructor(
    private readonly options: {
      baseUrl: string;
      credentials: () => Promise<DatadogCredentials>;
      fetch?: typeof fetch;
    },
  ) {}

  private async headers(): Promise<Record<string, string>> {
    const { apiKey, appKey } = await this.options.credentials();
    return { 'DD-API-KEY': apiKey, 'DD-APPLICATION-KEY': appKey, accept: 'application/json' };
  }

  private url(path: string): string {
    return `${this.options.baseUrl.replace(/\/$/, '')}${path}`;
  }

  async filter(query: LogsQuery): Promise<{ events: FetchedLogEvent[]; truncated: boolean }> {
    const headers = { ...(await this.headers()), 'content-type': 'application/json' };
    const events: FetchedLogEvent[] = [];
    let cursor: string | undefined;
    let truncated = false;
    do {
      const page = await requestJson(
        this.name,
        this.url('/api/v2/logs/events/search'),
        {
          method: 'POST',
          headers,
          body: JSON.stringify({
            filter: {
              query: `service:${query.service}${query.pattern ? ` ${query.pattern}` : ''}`,
              from: new Date(query.start).toISOString(),
              to: new Date(query.end).toISOString(),
            },
            sort: 'timestamp',
            page: { limit: Math.min(1000, query.limit - events.length + 1), ...(cursor ? { cursor } : {}) },
          }),
        },
        LogsPage,
        this.options.fetch,
      );
      for (const item of page.data) {
        const { timestamp, message, status, host } = item.attributes;
        const level = status ? `${status.toUpperCase()} ` : '';
        events.push({
          timestamp: Date.parse(timestamp),
          message: `${level}${message ?? ''}`,
          service: query.service,
          ...(host ? { stream: host } : {}),
        });
      }
      cursor = page.meta?.page?.after;
      if (events.length > query.limit) {
        truncated = true;
        cursor = undefined;
      }
    } while (cursor !== undefined && cursor !== '');
    events.sort((a, b) => a.timestamp - b.timestamp);
    return { events: events.slice(0, query.limit), truncated };
  }

  async get(query: MetricsQuery): Promise<MetricSeries[]> {
    const headers = await this.headers();
    const aggregation = AGGREGATIONS[query.stat] ?? query.stat;
    const series: MetricSeries[] = [];
    for (const name of query.names) {
      const q = `${aggregation}:${name}{service:${query.service}}.rollup(${aggregation === 'count' ? 'count' : aggregation.startsWith('p') ? 'avg' : aggregation}, ${query.periodSeconds})`;
      const params = new URLSearchParams({
        from: String(Math.floor(query.start / 1000)),
        to: String(Math.floor(query.end / 1000)),
        query: q,
      });
      const answer = await requestJson(
        this.name,
        this.url(`/api/v1/query?${params}`),
        { method: 'GET', headers },
        MetricsAnswer,
        this.options.fetch,
      );
      const points = (answer.series[0]?.pointlist ?? []).filter((p): p is [number, number] => p[1] !== null);
      series.push({ name, timestamps: points.map((p) => p[0]), values: points.map((p) => p[1]) });
    }
    return series;
  }
}
