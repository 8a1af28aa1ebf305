import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_KINDS } from '../../lambdas/kernel/record-versions.ts';
import { callDynamoDb } from '../../local/stepfunctions/integrations.ts';
import { CONVERSATION_VERSION_STAMP } from '../../statemachines/kernel-records.ts';
import { type AslState, allStates, definitions, templateOf } from '../infra/template.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * The state machines' own DynamoDB tasks (no Lambda, so no record version layer) keep the
 * conversation record's `schemaVersion` as the functions' writes do: they only update a
 * conversation that exists, and stamp this release's version on an item without one.
 */

const template = templateOf({ config: { bugInvestigation: { repository: 'demo/webshop' } } });
const dynamoTasks: { machine: string; state: string; task: AslState }[] = [];
for (const [machine, definition] of definitions(template)) {
  for (const [state, task] of allStates(definition)) {
    if (task.Type === 'Task' && String(task.Resource).includes(':dynamodb:'))
      dynamoTasks.push({ machine, state, task });
  }
}

describe("the state machines' DynamoDB tasks", () => {
  it('are updates of an existing conversation record, never a put or a delete', () => {
    expect(dynamoTasks.length).toBeGreaterThan(0);
    for (const { machine, state, task } of dynamoTasks) {
      const where = `${machine} / ${state}`;
      expect(String(task.Resource), where).toMatch(/:states:::dynamodb:updateItem$/);
      const parameters = task.Parameters as Record<string, unknown>;
      expect(parameters.ConditionExpression, where).toBe('attribute_exists(pk)');
      expect(JSON.stringify(parameters.Key), where).toContain('CONV#');
      expect((parameters.Key as { sk: { S: string } }).sk.S, where).toBe(RECORD_KINDS.conversation.sk);
    }
  });

  it("each stamps the conversation's version on an item without one", () => {
    for (const { machine, state, task } of dynamoTasks) {
      const parameters = task.Parameters as Record<string, Record<string, unknown>>;
      const where = `${machine} / ${state}`;
      expect(String(parameters.UpdateExpression), where).toContain(CONVERSATION_VERSION_STAMP.set);
      expect(parameters.ExpressionAttributeNames?.['#schemaVersion'], where).toBe('schemaVersion');
      expect(parameters.ExpressionAttributeValues?.[':schemaVersion'], where).toEqual({
        N: String(RECORD_KINDS.conversation.current),
      });
    }
  });

  describe('run against DynamoDB', () => {
    let dynamo: Awaited<ReturnType<typeof startDynalite>>;
    beforeAll(async () => {
      dynamo = await startDynalite('Conversations');
    });
    afterAll(async () => dynamo?.close());

    /** The task's Parameters for the conversation `id`, as the runtime hands them to DynamoDB. */
    function parametersFor(task: AslState, id: string): Record<string, unknown> {
      const parameters = structuredClone(task.Parameters) as Record<string, unknown>;
      parameters.TableName = 'Conversations';
      parameters.Key = { pk: { S: `CONV#${id}` }, sk: { S: RECORD_KINDS.conversation.sk } };
      // Values read from the state (`.$` keys) stand in as plain strings or numbers.
      const values = parameters.ExpressionAttributeValues as Record<string, Record<string, unknown>>;
      for (const [name, value] of Object.entries(values)) {
        if ('S.$' in value) values[name] = { S: 'from-the-state' };
        if ('N.$' in value) values[name] = { N: '1' };
      }
      return parameters;
    }

    it('gives a record without a version the current one, and leaves a versioned record its own', async () => {
      const { task } = dynamoTasks.find((t) => t.state === 'Record handover') ?? dynamoTasks[0] ?? {};
      if (!task) throw new Error('no DynamoDB task');
      await dynamo.client.send(
        new PutItemCommand({
          TableName: 'Conversations',
          Item: { pk: { S: 'CONV#old' }, sk: { S: RECORD_KINDS.conversation.sk } },
        }),
      );
      await dynamo.client.send(
        new PutItemCommand({
          TableName: 'Conversations',
          Item: {
            pk: { S: 'CONV#kept' },
            sk: { S: RECORD_KINDS.conversation.sk },
            schemaVersion: { N: '7' },
          },
        }),
      );
      await callDynamoDb(dynamo.client, 'updateItem', parametersFor(task, 'old'));
      await callDynamoDb(dynamo.client, 'updateItem', parametersFor(task, 'kept'));
      const version = async (id: string) =>
        (
          await dynamo.client.send(
            new GetItemCommand({
              TableName: 'Conversations',
              Key: { pk: { S: `CONV#${id}` }, sk: { S: RECORD_KINDS.conversation.sk } },
            }),
          )
        ).Item?.schemaVersion;
      expect(await version('old')).toEqual({ N: String(RECORD_KINDS.conversation.current) });
      expect(await version('kept')).toEqual({ N: '7' });
      // And a conversation that does not exist is not created.
      await expect(
        callDynamoDb(dynamo.client, 'updateItem', parametersFor(task, 'missing')),
      ).rejects.toThrow();
    });
  });
});
