import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { DYNAMODB_TARGET_PREFIX } from './sandbox-options.ts';
import { UnsupportedTemplateError } from './template.ts';

/**
 * The settings of the template's queues and tables that the sandbox's emulators would
 * otherwise drop (a dead-letter queue's 14-day retention showed as SQS's default 4
 * days, the table's TTL as disabled). Every property of an `AWS::SQS::Queue` becomes the queue
 * attribute of the same name; a property the sandbox does not know fails the start, so none is
 * dropped silently. Tables: dynalite creates the table; TTL and point-in-time recovery, which
 * dynalite does not keep, are kept here and answered on the DynamoDB protocol.
 */

/** `AWS::SQS::Queue` properties that are queue attributes, and how CloudFormation writes them. */
const QUEUE_ATTRIBUTES = {
  ContentBasedDeduplication: 'boolean',
  DeduplicationScope: 'string',
  DelaySeconds: 'number',
  FifoQueue: 'boolean',
  FifoThroughputLimit: 'string',
  KmsDataKeyReusePeriodSeconds: 'number',
  KmsMasterKeyId: 'string',
  MaximumMessageSize: 'number',
  MessageRetentionPeriod: 'number',
  ReceiveMessageWaitTimeSeconds: 'number',
  RedriveAllowPolicy: 'json',
  RedrivePolicy: 'json',
  SqsManagedSseEnabled: 'boolean',
  VisibilityTimeout: 'number',
} as const;
/** Queue properties that are not attributes: the name makes the URL; tags are not emulated. */
const QUEUE_NOT_ATTRIBUTES = new Set(['QueueName', 'Tags']);

/** The CreateQueue attributes of a queue's (resolved) CloudFormation properties. */
export function queueAttributes(
  logicalId: string,
  properties: Record<string, unknown>,
): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(properties)) {
    if (QUEUE_NOT_ATTRIBUTES.has(name) || value === undefined) continue;
    const kind = QUEUE_ATTRIBUTES[name as keyof typeof QUEUE_ATTRIBUTES];
    if (kind === undefined) {
      throw new UnsupportedTemplateError(
        `queue ${logicalId}: the sandbox does not apply the property ${name}`,
      );
    }
    if (kind === 'json') attributes[name] = typeof value === 'string' ? value : JSON.stringify(value);
    else attributes[name] = String(value);
  }
  return attributes;
}

const TimeToLiveSpecification = z.object({ AttributeName: z.string().min(1), Enabled: z.boolean() });
const PointInTime = z.object({ PointInTimeRecoveryEnabled: z.boolean() });

/** Table properties dynalite creates the table with, and those this module keeps. */
const TABLE_CREATE = new Set([
  'TableName',
  'KeySchema',
  'AttributeDefinitions',
  'BillingMode',
  'GlobalSecondaryIndexes',
  'LocalSecondaryIndexes',
]);
/**
 * Accepted and not emulated: encryption at rest, the storage class, Contributor Insights and
 * tags change nothing a handler can see, and deletion protection guards against `cdk
 * destroy`, which the sandbox never runs. (A stream is not among them: code could depend on
 * one, and the sandbox runs none, so it stops the start.)
 */
const TABLE_ACCEPTED = new Set([
  'SSESpecification',
  'Tags',
  'DeletionProtectionEnabled',
  'TableClass',
  'ContributorInsightsSpecification',
]);

export interface TableSettings {
  ttl?: { attributeName: string; enabled: boolean };
  pointInTimeRecovery: boolean;
}

/** The settings of a table's (resolved) properties that dynalite does not keep. */
export function tableSettings(logicalId: string, properties: Record<string, unknown>): TableSettings {
  const settings: TableSettings = { pointInTimeRecovery: false };
  for (const [name, value] of Object.entries(properties)) {
    if (TABLE_CREATE.has(name) || TABLE_ACCEPTED.has(name)) continue;
    if (name === 'TimeToLiveSpecification') {
      const ttl = TimeToLiveSpecification.parse(value);
      settings.ttl = { attributeName: ttl.AttributeName, enabled: ttl.Enabled };
    } else if (name === 'PointInTimeRecoverySpecification') {
      settings.pointInTimeRecovery = PointInTime.parse(value).PointInTimeRecoveryEnabled;
    } else {
      throw new UnsupportedTemplateError(
        `table ${logicalId}: the sandbox does not apply the property ${name}`,
      );
    }
  }
  return settings;
}

const TableRequest = z.object({ TableName: z.string().min(1) });
const UpdateTtlRequest = TableRequest.extend({ TimeToLiveSpecification });
const UpdateBackupsRequest = TableRequest.extend({ PointInTimeRecoverySpecification: PointInTime });

/** The operations answered here; every other DynamoDB call goes to dynalite. */
const OPERATIONS = [
  'DescribeTimeToLive',
  'UpdateTimeToLive',
  'DescribeContinuousBackups',
  'UpdateContinuousBackups',
] as const;

/**
 * Tables' TTL and point-in-time recovery settings, answered as DynamoDB answers
 * `DescribeTimeToLive`, `UpdateTimeToLive`, `DescribeContinuousBackups` and
 * `UpdateContinuousBackups`. Expired items are not deleted (DynamoDB itself deletes them
 * only within days, so no code may count on it).
 */
export class TableSettingsStore {
  private readonly tables = new Map<string, TableSettings>();

  set(tableName: string, settings: TableSettings): void {
    this.tables.set(tableName, settings);
  }

  /** Whether the request with this `X-Amz-Target` is answered here. */
  handles(target: string): boolean {
    return (
      target.startsWith(DYNAMODB_TARGET_PREFIX) &&
      (OPERATIONS as readonly string[]).includes(target.slice(DYNAMODB_TARGET_PREFIX.length))
    );
  }

  serve(req: IncomingMessage, res: ServerResponse, body: string): void {
    const operation = String(req.headers['x-amz-target'] ?? '').slice(DYNAMODB_TARGET_PREFIX.length);
    const [status, value] = this.answer(operation, body);
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(value));
  }

  private answer(operation: string, body: string): [number, unknown] {
    const fail = (type: string, message: string): [number, unknown] => [
      400,
      { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message },
    ];
    let input: unknown;
    try {
      input = JSON.parse(body);
    } catch {
      return fail('SerializationException', 'the body is not JSON');
    }
    const table = TableRequest.safeParse(input);
    if (!table.success) return fail('ValidationException', 'TableName is required');
    const settings = this.tables.get(table.data.TableName);
    if (!settings) {
      return fail(
        'ResourceNotFoundException',
        `Requested resource not found: Table: ${table.data.TableName} not found`,
      );
    }
    switch (operation) {
      case 'DescribeTimeToLive':
        return [
          200,
          {
            TimeToLiveDescription: settings.ttl?.enabled
              ? { TimeToLiveStatus: 'ENABLED', AttributeName: settings.ttl.attributeName }
              : { TimeToLiveStatus: 'DISABLED' },
          },
        ];
      case 'UpdateTimeToLive': {
        const update = UpdateTtlRequest.safeParse(input);
        if (!update.success) return fail('ValidationException', 'TimeToLiveSpecification is required');
        const wanted = update.data.TimeToLiveSpecification;
        if ((settings.ttl?.enabled ?? false) === wanted.Enabled) {
          return fail(
            'ValidationException',
            `TimeToLive is already ${wanted.Enabled ? 'enabled' : 'disabled'}`,
          );
        }
        settings.ttl = { attributeName: wanted.AttributeName, enabled: wanted.Enabled };
        return [200, { TimeToLiveSpecification: wanted }];
      }
      case 'DescribeContinuousBackups':
        return [200, { ContinuousBackupsDescription: backups(settings) }];
      case 'UpdateContinuousBackups': {
        const update = UpdateBackupsRequest.safeParse(input);
        if (!update.success)
          return fail('ValidationException', 'PointInTimeRecoverySpecification is required');
        settings.pointInTimeRecovery =
          update.data.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled;
        return [200, { ContinuousBackupsDescription: backups(settings) }];
      }
      default:
        return fail('UnknownOperationException', `${operation} is not answered here`);
    }
  }
}

function backups(settings: TableSettings) {
  return {
    ContinuousBackupsStatus: 'ENABLED',
    PointInTimeRecoveryDescription: {
      PointInTimeRecoveryStatus: settings.pointInTimeRecovery ? 'ENABLED' : 'DISABLED',
    },
  };
}
