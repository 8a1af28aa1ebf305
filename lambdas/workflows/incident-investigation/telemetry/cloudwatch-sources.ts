import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import {
  type CloudWatchLogsClient,
  FilterLogEventsCommand,
  GetQueryResultsCommand,
  StartQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { statusKind, TelemetrySourceError } from './errors.ts';
import type {
  FetchedLogEvent,
  InsightsQuery,
  InsightsRows,
  LogsQuery,
  LogsSource,
  MetricSeries,
  MetricsQuery,
  MetricsSource,
} from './sources.ts';

/**
 * CloudWatch Logs and metrics through the real SDK v3 clients (in the sandbox they reach the
 * emulators through `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS` / `AWS_ENDPOINT_URL_CLOUDWATCH`). SDK
 * errors become `TelemetrySourceError`, retryable when the SDK says so (throttling, 5xx).
 */

/** An SDK error as a source error; one without an HTTP status (a network failure) is retryable. */
export function sourceError(source: string, error: unknown): TelemetrySourceError {
  const e = error as {
    name?: string;
    message?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  const status = e.$metadata?.httpStatusCode ?? 0;
  const kind = statusKind(status);
  return new TelemetrySourceError(
    source,
    `${e.name ?? 'Error'}: ${e.message ?? String(error)}`,
    {
      retryable: kind.retryable || e.$retryable !== undefined || status === 0,
      invalidQuery: kind.invalidQuery,
    },
    { cause: error },
  );
}

export class CloudWatchLogsSource implements LogsSource {
  readonly name = 'cloudwatch-logs';

  constructor(
    private readonly client: CloudWatchLogsClient,
    private readonly options: {
      /** How long an Insights query may run. */
      insightsTimeoutMs: number;
      /** Between two GetQueryResults. @default 500 */
      pollMs?: number;
      sleep?: (ms: number) => Promise<void>;
    },
  ) {}

  async filter(query: LogsQuery): Promise<{ events: FetchedLogEvent[]; truncated: boolean }> {
    const events: FetchedLogEvent[] = [];
    let truncated = false;
    try {
      for (const group of query.logGroups) {
        let nextToken: string | undefined;
        do {
          const page = await this.client.send(
            new FilterLogEventsCommand({
              logGroupName: group,
              startTime: query.start,
              endTime: query.end,
              ...(query.pattern ? { filterPattern: query.pattern } : {}),
              limit: Math.min(10_000, query.limit - events.length + 1),
              ...(nextToken ? { nextToken } : {}),
            }),
          );
          for (const e of page.events ?? []) {
            if (e.timestamp === undefined || e.message === undefined) continue;
            events.push({
              timestamp: e.timestamp,
              message: e.message,
              service: query.service,
              ...(e.logStreamName ? { stream: e.logStreamName } : {}),
            });
          }
          nextToken = page.nextToken;
          // One more than the limit tells "more matched" apart from "exactly the limit".
          if (events.length > query.limit) {
            truncated = true;
            nextToken = undefined;
          }
        } while (nextToken !== undefined);
        if (truncated) break;
      }
    } catch (error) {
      throw sourceError(this.name, error);
    }
    events.sort((a, b) => a.timestamp - b.timestamp);
    return { events: events.slice(0, query.limit), truncated };
  }

  async insights(query: InsightsQuery): Promise<InsightsRows> {
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    let queryId: string | undefined;
    try {
      const started = await this.client.send(
        new StartQueryCommand({
          logGroupNames: [...query.logGroups],
          // Insights takes seconds; the end second is included whole.
          startTime: Math.floor(query.start / 1000),
          endTime: Math.floor(query.end / 1000),
          queryString: query.queryString,
          limit: query.limit,
        }),
      );
      queryId = started.queryId;
      if (queryId === undefined) throw new Error('StartQuery answered no queryId');
      const deadline = Date.now() + this.options.insightsTimeoutMs;
      for (;;) {
        const result = await this.client.send(new GetQueryResultsCommand({ queryId }));
        if (result.status === 'Complete') {
          return {
            rows: (result.results ?? []).map((row) =>
              Object.fromEntries(
                row
                  .filter((f) => f.field !== undefined && f.field !== '@ptr')
                  .map((f) => [f.field, f.value ?? '']),
              ),
            ),
            ...(result.statistics?.recordsMatched !== undefined
              ? { recordsMatched: result.statistics.recordsMatched }
              : {}),
            ...(result.statistics?.recordsScanned !== undefined
              ? { recordsScanned: result.statistics.recordsScanned }
              : {}),
          };
        }
        if (result.status !== 'Running' && result.status !== 'Scheduled')
          throw new Error(`the query ended ${result.status}`);
        // No StopQuery: the function is granted reads only; an abandoned query ends at the service's own limit.
        if (Date.now() > deadline) {
          throw new TelemetrySourceError(
            this.name,
            `the Insights query did not complete in ${this.options.insightsTimeoutMs} ms`,
            {
              retryable: true,
              invalidQuery: false,
            },
          );
        }
        await sleep(this.options.pollMs ?? 500);
      }
    } catch (error) {
      if (error instanceof TelemetrySourceError) throw error;
      throw sourceError(this.name, error);
    }
  }
}

export class CloudWatchMetricsSource implements MetricsSource {
  readonly name = 'cloudwatch-metrics';

  constructor(private readonly client: CloudWatchClient) {}

  async get(query: MetricsQuery): Promise<MetricSeries[]> {
    const queries: MetricDataQuery[] = query.names.map((name, i) => ({
      Id: `m${i}`,
      Label: name,
      MetricStat: {
        Metric: {
          Namespace: query.namespace,
          MetricName: name,
          Dimensions: Object.entries(query.dimensions).map(([Name, Value]) => ({ Name, Value })),
        },
        Period: query.periodSeconds,
        Stat: query.stat,
      },
    }));
    const series = new Map<string, MetricSeries>(
      query.names.map((name, i) => [`m${i}`, { name, timestamps: [], values: [] }]),
    );
    try {
      let nextToken: string | undefined;
      do {
        const page = await this.client.send(
          new GetMetricDataCommand({
            MetricDataQueries: queries,
            StartTime: new Date(query.start),
            EndTime: new Date(query.end),
            ScanBy: 'TimestampAscending',
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        for (const result of page.MetricDataResults ?? []) {
          const target = series.get(result.Id ?? '');
          if (target === undefined) continue;
          (result.Timestamps ?? []).forEach((t, i) => {
            const value = result.Values?.[i];
            if (value === undefined) return;
            target.timestamps.push(t.getTime());
            target.values.push(value);
          });
        }
        nextToken = page.NextToken;
      } while (nextToken !== undefined);
    } catch (error) {
      throw sourceError(this.name, error);
    }
    return [...series.values()];
  }
}
