import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startDynalite } from '../support/dynalite.ts';
import { machineArn, startStepFunctions } from './stepfunctions.harness.ts';

type Sandbox = Awaited<ReturnType<typeof startStepFunctions>>;
let sandbox: Sandbox | undefined;
let dynamo: Awaited<ReturnType<typeof startDynalite>> | undefined;
afterEach(async () => {
  await sandbox?.close();
  await dynamo?.close();
  sandbox = undefined;
  dynamo = undefined;
});

describe('DynamoDB integrations', () => {
  /** Marks the conversation's phase, as the kernel's `setConversationFields` does, only if it exists. */
  const markPhase = (tableName: string) => ({
    StartAt: 'Mark investigating',
    States: {
      'Mark investigating': {
        Type: 'Task',
        Resource: 'arn:aws:states:::dynamodb:updateItem',
        Parameters: {
          TableName: tableName,
          Key: { pk: { 'S.$': "States.Format('CONV#{}', $.conversationId)" }, sk: { S: 'META' } },
          UpdateExpression: 'SET phase = :phase',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':phase': { S: 'investigating' } },
          ReturnValues: 'ALL_NEW',
        },
        ResultSelector: { 'phase.$': '$.Attributes.phase.S' },
        ResultPath: '$.updated',
        TimeoutSeconds: 20,
        Catch: [
          {
            ErrorEquals: ['DynamoDB.ConditionalCheckFailedException'],
            ResultPath: '$.missing',
            Next: 'Missing',
          },
        ],
        Next: 'Read back',
      },
      'Read back': {
        Type: 'Task',
        Resource: 'arn:aws:states:::dynamodb:getItem',
        Parameters: {
          TableName: tableName,
          Key: { pk: { 'S.$': "States.Format('CONV#{}', $.conversationId)" }, sk: { S: 'META' } },
          ConsistentRead: true,
        },
        ResultPath: '$.read',
        TimeoutSeconds: 20,
        End: true,
      },
      Missing: { Type: 'Pass', End: true },
    },
  });

  async function dynamoSandbox() {
    dynamo = await startDynalite('Conversations');
    sandbox = await startStepFunctions({ invokeLambda: async () => null, dynamodb: dynamo.client });
    sandbox.runtime.registerStateMachine({
      arn: machineArn('Mark'),
      name: 'Mark',
      definition: markPhase('Conversations'),
    });
    return { runtime: sandbox.runtime, dynamo };
  }

  it('updates an item with updateItem and reads it back with getItem, in the service response shapes', async () => {
    const { runtime, dynamo } = await dynamoSandbox();
    await dynamo.client.send(
      new PutItemCommand({
        TableName: 'Conversations',
        Item: { pk: { S: 'CONV#c1' }, sk: { S: 'META' }, phase: { S: 'new' } },
      }),
    );

    const { executionArn } = runtime.startExecution({
      stateMachineArn: machineArn('Mark'),
      input: '{"conversationId":"c1"}',
    });
    const execution = await runtime.waitForExecution(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    const output = JSON.parse(execution.output as string);
    expect(output.updated).toEqual({ phase: 'investigating' });
    expect(output.read).toEqual({
      Item: { pk: { S: 'CONV#c1' }, sk: { S: 'META' }, phase: { S: 'investigating' } },
    });
    const stored = await dynamo.client.send(
      new GetItemCommand({ TableName: 'Conversations', Key: { pk: { S: 'CONV#c1' }, sk: { S: 'META' } } }),
    );
    expect(stored.Item?.phase).toEqual({ S: 'investigating' });
  });

  it('names a failed condition DynamoDB.ConditionalCheckFailedException, as the optimized integration does', async () => {
    const { runtime } = await dynamoSandbox();

    const { executionArn } = runtime.startExecution({
      stateMachineArn: machineArn('Mark'),
      input: '{"conversationId":"none"}',
    });
    const execution = await runtime.waitForExecution(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output as string).missing.Error).toBe(
      'DynamoDB.ConditionalCheckFailedException',
    );
  });
});

describe('states:startExecution', () => {
  const child = { StartAt: 'Echo', States: { Echo: { Type: 'Pass', End: true } } };
  const parent = {
    StartAt: 'Start SLA tracking',
    States: {
      'Start SLA tracking': {
        Type: 'Task',
        Resource: 'arn:aws:states:::states:startExecution',
        Parameters: {
          StateMachineArn: machineArn('Child'),
          'Name.$': '$.name',
          Input: { 'bug.$': '$.bug', 'AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$': '$$.Execution.Id' },
        },
        ResultPath: '$.child',
        TimeoutSeconds: 20,
        Catch: [
          {
            ErrorEquals: ['StepFunctions.ExecutionAlreadyExistsException'],
            ResultPath: '$.duplicate',
            Next: 'Already tracking',
          },
        ],
        End: true,
      },
      'Already tracking': { Type: 'Pass', End: true },
    },
  };

  async function nestedSandbox() {
    sandbox = await startStepFunctions({ invokeLambda: async () => null });
    sandbox.runtime.registerStateMachine({ arn: machineArn('Child'), name: 'Child', definition: child });
    sandbox.runtime.registerStateMachine({ arn: machineArn('Parent'), name: 'Parent', definition: parent });
    return sandbox.runtime;
  }

  it('starts a child execution and returns its ARN and start date without waiting for it', async () => {
    const runtime = await nestedSandbox();

    const { executionArn } = runtime.startExecution({
      stateMachineArn: machineArn('Parent'),
      name: 'p-1',
      input: '{"name":"sla-1","bug":{"id":3}}',
    });
    const execution = await runtime.waitForExecution(executionArn);

    const { child: started } = JSON.parse(execution.output as string);
    expect(started.ExecutionArn).toBe('arn:aws:states:us-east-1:000000000000:execution:Child:sla-1');
    expect(typeof started.StartDate).toBe('number');
    const childExecution = await runtime.waitForExecution(started.ExecutionArn);
    expect(JSON.parse(childExecution.output as string)).toEqual({
      bug: { id: 3 },
      AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID: executionArn,
    });
  });

  it('fails with StepFunctions.ExecutionAlreadyExistsException when the child name is taken', async () => {
    const runtime = await nestedSandbox();
    runtime.startExecution({ stateMachineArn: machineArn('Child'), name: 'sla-2', input: '{"other":true}' });

    const { executionArn } = runtime.startExecution({
      stateMachineArn: machineArn('Parent'),
      input: '{"name":"sla-2","bug":{"id":4}}',
    });
    const execution = await runtime.waitForExecution(executionArn);

    expect(JSON.parse(execution.output as string).duplicate.Error).toBe(
      'StepFunctions.ExecutionAlreadyExistsException',
    );
  });
});
