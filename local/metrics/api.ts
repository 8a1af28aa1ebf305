import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { LocalMetrics, STAT } from './store.ts';

/**
 * CloudWatch metrics in the sandbox, over the protocol `@aws-sdk/client-cloudwatch` 3.11xx
 * speaks: AWS JSON 1.0 (`X-Amz-Target: GraniteServiceVersion20100801.<op>`, timestamps as epoch
 * seconds) with query-compatible errors (the `x-amzn-query-error: <Code>;Sender` header the
 * SDK reads the error code from). Through `AWS_ENDPOINT_URL_CLOUDWATCH`.
 *
 * - `GetMetricData`: `MetricStat` queries (statistics of store.ts), `ScanBy`, `Label`,
 *   `ReturnData`. Metric math (`Expression`) is refused with `InvalidParameterValue`.
 * - `PutMetricData`: `Value`, or `Values` with `Counts`, to seed it (the demo incident, moto).
 *
 * Checked against moto_server in test/local/metrics-moto.test.ts.
 */

export const CLOUDWATCH_TARGET_PREFIX = 'GraniteServiceVersion20100801.';

export class MetricsApiError extends Error {
  override readonly name = 'MetricsApiError';
  constructor(
    /** The query-protocol code (`InvalidParameterValue`); the JSON `__type` adds `Exception`. */
    readonly code:
      | 'InvalidParameterValue'
      | 'MissingParameter'
      | 'InvalidParameterCombination'
      | 'UnknownOperation',
    message: string,
  ) {
    super(message);
  }
}

/** Epoch seconds, as JSON 1.0 sends timestamps. */
const Seconds = z.number().nonnegative();
const Dimensions = z
  .array(z.object({ Name: z.string().min(1).max(255), Value: z.string().min(1).max(1024) }))
  .max(30);
const MetricStat = z.object({
  Metric: z.object({
    Namespace: z.string().min(1).max(255),
    MetricName: z.string().min(1).max(255),
    Dimensions: Dimensions.optional(),
  }),
  Period: z.number().int().min(1),
  Stat: z.string().min(1),
  Unit: z.string().optional(),
});
const GetMetricDataInput = z.object({
  MetricDataQueries: z
    .array(
      z.object({
        Id: z.string().regex(/^[a-z][A-Za-z0-9_]*$/, 'Id starts with a lower-case letter'),
        MetricStat: MetricStat.optional(),
        Expression: z.string().optional(),
        Label: z.string().optional(),
        ReturnData: z.boolean().optional(),
        Period: z.number().int().optional(),
        AccountId: z.string().optional(),
      }),
    )
    .min(1)
    .max(500),
  StartTime: Seconds,
  EndTime: Seconds,
  NextToken: z.string().optional(),
  ScanBy: z.enum(['TimestampDescending', 'TimestampAscending']).optional(),
  MaxDatapoints: z.number().int().min(1).optional(),
  LabelOptions: z.object({ Timezone: z.string().optional() }).optional(),
});
const PutMetricDataInput = z.object({
  Namespace: z.string().min(1).max(255),
  MetricData: z
    .array(
      z.object({
        MetricName: z.string().min(1).max(255),
        Dimensions: Dimensions.optional(),
        Timestamp: Seconds.optional(),
        Value: z.number().optional(),
        Values: z.array(z.number()).optional(),
        Counts: z.array(z.number()).optional(),
        Unit: z.string().optional(),
        StorageResolution: z.number().int().optional(),
      }),
    )
    .min(1)
    .max(1000),
});

export class MetricsService {
  constructor(
    readonly metrics: LocalMetrics = new LocalMetrics(),
    private readonly now: () => number = Date.now,
  ) {}

  call(operation: string, raw: unknown): unknown {
    if (operation === 'GetMetricData') return this.getMetricData(parse(GetMetricDataInput, raw));
    if (operation === 'PutMetricData') {
      const input = parse(PutMetricDataInput, raw);
      for (const datum of input.MetricData) {
        const id = { namespace: input.Namespace, name: datum.MetricName, dimensions: datum.Dimensions ?? [] };
        const time = datum.Timestamp === undefined ? this.now() : datum.Timestamp * 1000;
        if (datum.Value !== undefined) this.metrics.put(id, time, datum.Value);
        for (const [i, value] of (datum.Values ?? []).entries())
          this.metrics.put(id, time, value, datum.Counts?.[i] ?? 1);
      }
      return {};
    }
    throw new MetricsApiError('UnknownOperation', `Unknown operation ${operation}`);
  }

  private getMetricData(input: z.infer<typeof GetMetricDataInput>) {
    if (input.EndTime <= input.StartTime)
      throw new MetricsApiError(
        'InvalidParameterValue',
        'The parameter StartTime must be less than the parameter EndTime.',
      );
    const ids = new Set<string>();
    const results = input.MetricDataQueries.map((query) => {
      if (ids.has(query.Id)) throw new MetricsApiError('InvalidParameterValue', `Duplicate Id ${query.Id}`);
      ids.add(query.Id);
      if (query.Expression !== undefined)
        throw new MetricsApiError(
          'InvalidParameterValue',
          `The sandbox's CloudWatch runs MetricStat queries only; metric math (${query.Id}: Expression) is not supported`,
        );
      const stat = query.MetricStat;
      if (stat === undefined)
        throw new MetricsApiError(
          'MissingParameter',
          `Query ${query.Id} needs a MetricStat or an Expression`,
        );
      if (!STAT.test(stat.Stat))
        throw new MetricsApiError(
          'InvalidParameterValue',
          `Unsupported statistic ${stat.Stat} in query ${query.Id}`,
        );
      const series = this.metrics.statistics(
        {
          namespace: stat.Metric.Namespace,
          name: stat.Metric.MetricName,
          dimensions: stat.Metric.Dimensions ?? [],
        },
        {
          start: input.StartTime * 1000,
          end: input.EndTime * 1000,
          periodSeconds: stat.Period,
          stat: stat.Stat,
          ascending: input.ScanBy === 'TimestampAscending',
        },
      );
      const max = input.MaxDatapoints ?? 100_800;
      return {
        query,
        result: {
          Id: query.Id,
          Label: query.Label ?? stat.Metric.MetricName,
          Timestamps: series.timestamps.slice(0, max).map((t) => t / 1000),
          Values: series.values.slice(0, max),
          StatusCode: series.timestamps.length > max ? 'PartialData' : 'Complete',
        },
      };
    });
    return {
      MetricDataResults: results
        .filter(({ query }) => query.ReturnData !== false)
        .map(({ result }) => result),
      Messages: [],
    };
  }
}

function parse<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new MetricsApiError('InvalidParameterValue', z.prettifyError(parsed.error));
  return parsed.data;
}

export function createMetricsApiHandler(service: MetricsService) {
  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> => {
    const target = String(req.headers['x-amz-target'] ?? '');
    try {
      let raw: unknown;
      try {
        raw = body === '' ? {} : JSON.parse(body);
      } catch {
        throw new MetricsApiError('InvalidParameterValue', 'The request body is not JSON');
      }
      const result = service.call(target.slice(CLOUDWATCH_TARGET_PREFIX.length), raw);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(result));
    } catch (error) {
      if (!(error instanceof MetricsApiError)) throw error;
      res
        .writeHead(400, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-query-error': `${error.code};Sender`,
        })
        .end(
          JSON.stringify({
            __type: `com.amazonaws.cloudwatch#${error.code}Exception`,
            message: error.message,
          }),
        );
    }
  };
}

export { LocalMetrics };
