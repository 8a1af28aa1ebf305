import { CloudFormationClient, DescribeStackEventsCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, GetMetricDataCommand, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  FilterLogEventsCommand,
  type FilterLogEventsCommandInput,
  GetQueryResultsCommand,
  PutLogEventsCommand,
  StartQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';

/**
 * One scenario over CloudWatch Logs (FilterLogEvents, Insights), CloudWatch metrics
 * (GetMetricData) and CloudFormation (DescribeStackEvents), run with the real SDK clients
 * against an endpoint: this sandbox's emulators or moto_server, a second, independent
 * implementation. Each observation is compared between the two unless marked `info` (printed
 * only, with the reason: where moto is known to differ from AWS's documented behaviour, or
 * where this emulator refuses what moto accepts loosely). Used by
 * test/local/telemetry-moto.test.ts and local/telemetry/check-against-moto.ts.
 */

export interface Observation {
  name: string;
  value: unknown;
  info?: string;
}

export async function telemetryScenario(endpoint: string, now: number): Promise<Observation[]> {
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    maxAttempts: 1,
  };
  const logs = new CloudWatchLogsClient(config);
  const cloudwatch = new CloudWatchClient(config);
  const cloudformation = new CloudFormationClient(config);
  const observations: Observation[] = [];
  const observe = (name: string, value: unknown, info?: string) =>
    observations.push({ name, value, ...(info ? { info } : {}) });
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'no error';
    } catch (error) {
      return (error as Error).name;
    }
  };
  try {
    // Minute-aligned, in the recent past (moto rejects events too old or in the future).
    const t0 = Math.floor(now / 60_000) * 60_000 - 30 * 60_000;
    const group = '/moto-check/payment-api';
    await logs.send(new CreateLogGroupCommand({ logGroupName: group }));
    const lines: Record<string, string[]> = {
      'web/1': [
        'INFO charge authorized in 120ms',
        'ERROR provider request timed out after 2000ms',
        'INFO charge authorized in 130ms',
        'WARN retrying provider request',
      ],
      'web/2': [
        'ERROR provider request timed out after 2000ms',
        'INFO health ok',
        'ERROR provider refused: 503',
        'INFO charge authorized in 90ms',
      ],
    };
    for (const [stream, messages] of Object.entries(lines)) {
      await logs.send(new CreateLogStreamCommand({ logGroupName: group, logStreamName: stream }));
      await logs.send(
        new PutLogEventsCommand({
          logGroupName: group,
          logStreamName: stream,
          logEvents: messages.map((message, i) => ({
            timestamp: t0 + i * 60_000 + (stream === 'web/2' ? 30_000 : 0),
            message,
          })),
        }),
      );
    }
    const filter = async (input: Omit<FilterLogEventsCommandInput, 'logGroupName'>) =>
      (await logs.send(new FilterLogEventsCommand({ logGroupName: group, interleaved: true, ...input })))
        .events ?? [];
    const messages = (events: { message?: string | undefined }[]) => events.map((e) => e.message);

    observe(
      'FilterLogEvents all, interleaved by time',
      (await filter({})).map((e) => [e.logStreamName, e.message]),
    );
    observe('FilterLogEvents term ERROR', messages(await filter({ filterPattern: 'ERROR' })));
    observe(
      'FilterLogEvents two terms (all needed)',
      messages(await filter({ filterPattern: 'ERROR timed' })),
    );
    observe(
      'FilterLogEvents quoted phrase',
      messages(await filter({ filterPattern: '"charge authorized"' })),
    );
    observe('FilterLogEvents is case-sensitive', messages(await filter({ filterPattern: 'error' })));
    observe(
      'FilterLogEvents startTime and endTime are inclusive',
      (await filter({ startTime: t0 + 60_000, endTime: t0 + 2 * 60_000 })).map(
        (e) => e.timestamp && e.timestamp - t0,
      ),
    );
    observe('FilterLogEvents logStreamNames', messages(await filter({ logStreamNames: ['web/2'] })));
    observe('FilterLogEvents event fields', Object.keys((await filter({ limit: 1 }))[0] ?? {}).sort());
    const page1 = await logs.send(
      new FilterLogEventsCommand({ logGroupName: group, interleaved: true, limit: 3 }),
    );
    const page2 = await logs.send(
      new FilterLogEventsCommand({
        logGroupName: group,
        interleaved: true,
        limit: 3,
        nextToken: page1.nextToken,
      }),
    );
    observe('FilterLogEvents paging: page sizes', [
      page1.events?.length,
      page2.events?.length,
      page1.nextToken !== undefined,
    ]);
    observe('FilterLogEvents paging: second page', messages(page2.events ?? []));
    observe(
      'FilterLogEvents searchedLogStreams',
      (page1.searchedLogStreams ?? []).map((s) => [s.logStreamName, s.searchedCompletely]).sort(),
    );
    observe(
      'FilterLogEvents of a missing group',
      await failure(logs.send(new FilterLogEventsCommand({ logGroupName: '/moto-check/none' }))),
    );
    observe(
      'FilterLogEvents ?term OR',
      messages(await filter({ filterPattern: '?WARN ?refused' })),
      'moto does not implement ?terms and answers every event; this emulator matches either term, as CloudWatch documents',
    );
    observe(
      'FilterLogEvents JSON pattern',
      messages(await filter({ filterPattern: '{ $.level = "error" }' })),
      'moto answers every event for a JSON pattern; this emulator matches JSON events only (none here)',
    );

    const { queryId } = await logs.send(
      new StartQueryCommand({
        logGroupName: group,
        startTime: Math.floor(t0 / 1000),
        endTime: Math.floor(now / 1000),
        queryString: 'fields @timestamp, @message | sort @timestamp desc | limit 3',
      }),
    );
    const results = await logs.send(new GetQueryResultsCommand({ queryId }));
    observe('GetQueryResults status', results.status);
    observe(
      'GetQueryResults fields, sort, limit: messages',
      (results.results ?? []).map((row) => row.find((f) => f.field === '@message')?.value),
    );
    observe(
      'StartQuery of a missing group',
      await failure(
        logs.send(
          new StartQueryCommand({
            logGroupName: '/moto-check/none',
            startTime: 0,
            endTime: 1,
            queryString: 'fields @message',
          }),
        ),
      ),
    );

    // Metrics: three minutes of latency, two samples a minute.
    const dimensions = [{ Name: 'Service', Value: 'payment-api' }];
    for (const [minute, values] of [
      [0, [100, 300]],
      [1, [200, 200]],
      [2, [900, 1100]],
    ] as const) {
      await cloudwatch.send(
        new PutMetricDataCommand({
          Namespace: 'MotoCheck',
          MetricData: values.map((Value) => ({
            MetricName: 'LatencyMs',
            Dimensions: dimensions,
            Timestamp: new Date(t0 + minute * 60_000 + 10_000),
            Value,
          })),
        }),
      );
    }
    const stat = async (Stat: string, ScanBy?: 'TimestampAscending') => {
      const result = await cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: [
            {
              Id: 'm1',
              MetricStat: {
                Metric: { Namespace: 'MotoCheck', MetricName: 'LatencyMs', Dimensions: dimensions },
                Period: 60,
                Stat,
              },
            },
          ],
          StartTime: new Date(t0),
          EndTime: new Date(t0 + 10 * 60_000),
          ...(ScanBy ? { ScanBy } : {}),
        }),
      );
      return result.MetricDataResults?.[0];
    };
    const average = await stat('Average');
    observe('GetMetricData Average values (newest first)', average?.Values);
    observe(
      'GetMetricData timestamps (minutes after start)',
      average?.Timestamps?.map((t) => (t.getTime() - t0) / 60_000),
    );
    observe('GetMetricData StatusCode', average?.StatusCode);
    observe('GetMetricData Sum', (await stat('Sum'))?.Values);
    observe('GetMetricData Maximum, ascending', (await stat('Maximum', 'TimestampAscending'))?.Values);
    observe('GetMetricData SampleCount', (await stat('SampleCount'))?.Values);
    observe(
      'GetMetricData default Label',
      average?.Label,
      'moto labels "<metric> <stat>"; this emulator, like CloudWatch without a Label, the metric name',
    );
    observe(
      'GetMetricData with EndTime equal to StartTime',
      await failure(
        cloudwatch.send(
          new GetMetricDataCommand({
            MetricDataQueries: [
              {
                Id: 'm1',
                MetricStat: {
                  Metric: { Namespace: 'MotoCheck', MetricName: 'LatencyMs' },
                  Period: 60,
                  Stat: 'Sum',
                },
              },
            ],
            StartTime: new Date(t0),
            EndTime: new Date(t0),
          }),
        ),
      ),
      "moto answers ValidationException; CloudWatch's API reference lists InvalidParameterValueException for invalid parameters, which this emulator answers",
    );

    observe(
      'DescribeStackEvents of a missing stack',
      await failure(cloudformation.send(new DescribeStackEventsCommand({ StackName: 'moto-check-none' }))),
    );
  } finally {
    logs.destroy();
    cloudwatch.destroy();
    cloudformation.destroy();
  }
  return observations;
}

export function compareObservations(ours: readonly Observation[], theirs: readonly Observation[]) {
  const format = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));
  return ours.map((observation, index) => {
    const other = theirs[index];
    const same = format(observation.value) === format(other?.value);
    return {
      name: observation.name,
      verdict: same ? 'same' : observation.info ? 'info' : 'DIFFERENT',
      ours: format(observation.value),
      theirs: format(other?.value),
      ...(observation.info ? { note: observation.info } : {}),
    } as const;
  });
}
