import {
  DescribeContinuousBackupsCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../local/sandbox-options.ts';
import {
  type CloudFormationTemplate,
  resourcesOfType,
  UnsupportedTemplateError,
} from '../../local/template.ts';
import { queueAttributes, tableSettings } from '../../local/template-settings.ts';
import { workerSandbox } from '../support/sandbox.ts';

/**
 * the sandbox applies every queue and table setting of the template (a dead-letter
 * queue's 14-day retention showed as SQS's default 4 days, the table's TTL as disabled), read
 * back through the real SDK clients as one would against AWS.
 */

describe('template settings the sandbox applies', () => {
  it("turns every queue property into the queue's attribute", () => {
    expect(
      queueAttributes('Dlq', {
        QueueName: 'x.fifo',
        FifoQueue: true,
        MessageRetentionPeriod: 1_209_600,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:y.fifo',
          maxReceiveCount: 5,
        },
      }),
    ).toEqual({
      FifoQueue: 'true',
      MessageRetentionPeriod: '1209600',
      SqsManagedSseEnabled: 'true',
      RedrivePolicy:
        '{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:y.fifo","maxReceiveCount":5}',
    });
  });

  it('refuses, by name, a queue or table property it cannot apply rather than dropping it', () => {
    expect(() => queueAttributes('Inbox', { FifoQueue: true, MessageGroupsPerSecond: 3 })).toThrow(
      new UnsupportedTemplateError(
        'queue Inbox: the sandbox does not apply the property MessageGroupsPerSecond',
      ),
    );
    expect(() =>
      tableSettings('Conversations', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } }),
    ).toThrow(/table Conversations: the sandbox does not apply the property StreamSpecification/);
  });

  it("keeps a table's TTL and point-in-time recovery", () => {
    expect(
      tableSettings('T', {
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      }),
    ).toEqual({ ttl: { attributeName: 'ttl', enabled: true }, pointInTimeRecovery: true });
  });
});

describe('the sandbox started from the synthesized template', () => {
  let sandbox: Sandbox;
  let template: CloudFormationTemplate;
  const credentials = { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' };

  beforeAll(async () => {
    sandbox = await workerSandbox({ logLevel: 'SILENT' });
    // The template it was started from, as the stack synthesized it for the default modules.
    template = sandbox.template;
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("has every FIFO queue's settings of the template, a 14-day dead-letter retention among them", async () => {
    const sqs = new SQSClient({ endpoint: sandbox.url, region: 'us-east-1', credentials });
    const urls = (await sqs.send(new ListQueuesCommand({}))).QueueUrls ?? [];
    const all = resourcesOfType(template, 'AWS::SQS::Queue');
    // The standard queues only keep failed asynchronous invocations; the sandbox's SQS serves
    // FIFO queues and does not create them.
    const standard = all.filter(([, resource]) => resource.Properties?.FifoQueue !== true);
    expect(standard.map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'SlackPostAsyncInvocationsQueue',
    ]);
    expect(urls.filter((u) => standard.some(([id]) => u.includes(id)))).toEqual([]);
    const queues = all.filter(([, resource]) => resource.Properties?.FifoQueue === true);
    expect(queues.length).toBeGreaterThan(1);
    let retentions = 0;
    for (const [logicalId, resource] of queues) {
      const url = urls.find((u) => u.includes(logicalId));
      if (!url) throw new Error(`no queue for ${logicalId} in ${urls.join(', ')}`);
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      );
      for (const [name, value] of Object.entries(resource.Properties ?? {})) {
        if (name === 'RedrivePolicy') {
          expect(JSON.parse(Attributes.RedrivePolicy ?? '{}').maxReceiveCount, logicalId).toBe(
            (value as { maxReceiveCount: number }).maxReceiveCount,
          );
        } else {
          expect((Attributes as Record<string, string>)[name], `${logicalId} ${name}`).toBe(String(value));
        }
      }
      if (resource.Properties?.MessageRetentionPeriod === 1_209_600) retentions += 1;
    }
    // The dead-letter queues keep messages 14 days, not SQS's default 4.
    expect(retentions).toBeGreaterThanOrEqual(1);
  });

  it("answers the table's TTL as the template enables it, and its point-in-time recovery", async () => {
    const dynamodb = new DynamoDBClient({ endpoint: sandbox.url, region: 'us-east-1', credentials });
    const [[, table] = []] = resourcesOfType(template, 'AWS::DynamoDB::Table');
    const spec = table?.Properties?.TimeToLiveSpecification as { AttributeName: string; Enabled: boolean };
    expect(spec.Enabled).toBe(true);
    const described = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: sandbox.tableName }));
    expect(described.TimeToLiveDescription).toEqual({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: spec.AttributeName,
    });
    const backups = await dynamodb.send(
      new DescribeContinuousBackupsCommand({ TableName: sandbox.tableName }),
    );
    expect(
      backups.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus,
    ).toBe('ENABLED');
    // As DynamoDB does: enabling what is enabled is refused; disabling is answered and kept.
    await expect(
      dynamodb.send(
        new UpdateTimeToLiveCommand({
          TableName: sandbox.tableName,
          TimeToLiveSpecification: { AttributeName: spec.AttributeName, Enabled: true },
        }),
      ),
    ).rejects.toThrow(/already enabled/);
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: sandbox.tableName,
        TimeToLiveSpecification: { AttributeName: spec.AttributeName, Enabled: false },
      }),
    );
    const after = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: sandbox.tableName }));
    expect(after.TimeToLiveDescription?.TimeToLiveStatus).toBe('DISABLED');
    await expect(
      dynamodb.send(new DescribeTimeToLiveCommand({ TableName: 'no-such-table' })),
    ).rejects.toThrow(/not found/);
  });
});
