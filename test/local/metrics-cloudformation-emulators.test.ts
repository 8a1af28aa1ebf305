import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudFormationClient, DescribeStackEventsCommand } from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  GetMetricDataCommand,
  InvalidParameterValueException,
  PutMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCloudFormationApiHandler,
  isCloudFormationRequest,
  LocalCloudFormation,
} from '../../local/cloudformation/api.ts';
import {
  CLOUDWATCH_TARGET_PREFIX,
  createMetricsApiHandler,
  MetricsService,
} from '../../local/metrics/api.ts';
import { readBody } from '../../local/read-body.ts';

const T0 = Date.parse('2015-11-23T20:00:00.000Z');
let server: Server;
let cloudwatch: CloudWatchClient;
let cloudformation: CloudFormationClient;
const stacks = new LocalCloudFormation({ region: 'us-east-1', account: '000000000000', pageSize: 3 });

beforeAll(async () => {
  const metricsApi = createMetricsApiHandler(new MetricsService(undefined, () => T0));
  const cloudformationApi = createCloudFormationApiHandler(stacks);
  server = createServer(
    (req, res) =>
      void readBody(req).then((body) => {
        if (String(req.headers['x-amz-target'] ?? '').startsWith(CLOUDWATCH_TARGET_PREFIX))
          return metricsApi(req, res, body);
        if (isCloudFormationRequest(req, body)) return cloudformationApi(req, res, body);
        res.writeHead(404).end();
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  };
  cloudwatch = new CloudWatchClient(config);
  cloudformation = new CloudFormationClient(config);
  // Ten minutes of latency: 100 ms, then 900 ms from minute 6; ten samples a minute.
  for (let m = 0; m < 10; m++) {
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'Shop',
        MetricData: [
          {
            MetricName: 'LatencyMs',
            Dimensions: [{ Name: 'Service', Value: 'api' }],
            Timestamp: new Date(T0 + m * 60_000 + 5000),
            Values: m >= 6 ? [100, 900] : [90, 110],
            Counts: m >= 6 ? [1, 9] : [5, 5],
          },
        ],
      }),
    );
  }
});

afterAll(async () => {
  cloudwatch.destroy();
  cloudformation.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const latency = (stat: string, period = 60) => ({
  Id: 'lat',
  MetricStat: {
    Metric: { Namespace: 'Shop', MetricName: 'LatencyMs', Dimensions: [{ Name: 'Service', Value: 'api' }] },
    Period: period,
    Stat: stat,
  },
});

describe('GetMetricData through the SDK (JSON 1.0)', () => {
  it('computes a statistic per period, newest first by default', async () => {
    const result = await cloudwatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: [latency('Average', 300)],
        StartTime: new Date(T0),
        EndTime: new Date(T0 + 600_000),
      }),
    );
    const series = result.MetricDataResults?.[0];
    expect(series?.Timestamps?.map((t) => t.toISOString())).toEqual([
      '2015-11-23T20:05:00.000Z',
      '2015-11-23T20:00:00.000Z',
    ]);
    // Minutes 5..9: one minute at 100, four at (100 + 9 * 900) / 10 = 820.
    expect(series?.Values).toEqual([(100 * 10 + 820 * 40) / 50, 100]);
    expect(series?.StatusCode).toBe('Complete');
    expect(series?.Label).toBe('LatencyMs');
  });

  it('computes percentiles over the samples, oldest first when asked', async () => {
    const result = await cloudwatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: [
          latency('p90', 600),
          { ...latency('Maximum', 600), Id: 'max', ReturnData: false },
        ],
        StartTime: new Date(T0),
        EndTime: new Date(T0 + 600_000),
        ScanBy: 'TimestampAscending',
      }),
    );
    expect(result.MetricDataResults).toHaveLength(1);
    // 100 samples: 60 at 90/110, 4 at 100, 36 at 900: the 90th is 900.
    expect(result.MetricDataResults?.[0]?.Values).toEqual([900]);
  });

  it('finds nothing for a dimension set that is not the metric’s own', async () => {
    const query = latency('Sum');
    query.MetricStat.Metric.Dimensions = [];
    const result = await cloudwatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: [query],
        StartTime: new Date(T0),
        EndTime: new Date(T0 + 600_000),
      }),
    );
    expect(result.MetricDataResults?.[0]?.Values).toEqual([]);
  });

  it('refuses metric math with InvalidParameterValue, as the SDK reads query-compatible errors', async () => {
    const error = await cloudwatch
      .send(
        new GetMetricDataCommand({
          MetricDataQueries: [{ Id: 'e1', Expression: 'SUM(METRICS())' }],
          StartTime: new Date(T0),
          EndTime: new Date(T0 + 60_000),
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParameterValueException);
    expect((error as Error).message).toMatch(/metric math/);
  });

  it('refuses an end time that is not after the start time', async () => {
    await expect(
      cloudwatch.send(
        new GetMetricDataCommand({
          MetricDataQueries: [latency('Sum')],
          StartTime: new Date(T0),
          EndTime: new Date(T0),
        }),
      ),
    ).rejects.toThrow(/StartTime must be less than/);
  });
});

describe('DescribeStackEvents through the SDK (query protocol)', () => {
  it('answers a stack’s events newest first, paged with NextToken', async () => {
    stacks.addEvents(
      'shop-prod',
      Array.from({ length: 5 }, (_, i) => ({
        logicalResourceId: i === 0 || i === 4 ? 'shop-prod' : `Resource${i}`,
        resourceType: i === 0 || i === 4 ? 'AWS::CloudFormation::Stack' : 'AWS::ECS::Service',
        timestamp: T0 + i * 1000,
        resourceStatus: i === 0 ? 'UPDATE_IN_PROGRESS' : 'UPDATE_COMPLETE',
        ...(i === 0 ? { resourceStatusReason: 'User Initiated & <scripted>' } : {}),
      })),
    );
    const first = await cloudformation.send(new DescribeStackEventsCommand({ StackName: 'shop-prod' }));
    const second = await cloudformation.send(
      new DescribeStackEventsCommand({ StackName: 'shop-prod', NextToken: first.NextToken }),
    );
    const events = [...(first.StackEvents ?? []), ...(second.StackEvents ?? [])];
    expect(first.StackEvents).toHaveLength(3);
    expect(second.NextToken).toBeUndefined();
    expect(events.map((e) => e.Timestamp?.getTime())).toEqual([4, 3, 2, 1, 0].map((i) => T0 + i * 1000));
    expect(events.at(-1)?.ResourceStatusReason).toBe('User Initiated & <scripted>');
    expect(events[0]?.StackId).toMatch(/^arn:aws:cloudformation:us-east-1:000000000000:stack\/shop-prod\//);
  });

  it('raises ValidationError for a stack that does not exist', async () => {
    await expect(
      cloudformation.send(new DescribeStackEventsCommand({ StackName: 'nope' })),
    ).rejects.toMatchObject({
      name: 'ValidationError',
      message: 'Stack with id nope does not exist',
    });
  });
});
