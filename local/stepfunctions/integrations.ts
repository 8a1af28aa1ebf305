import {
  DeleteItemCommand,
  type DeleteItemCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  PutItemCommand,
  type PutItemCommandInput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDbAction } from './task-resources.ts';

/**
 * The service integrations a Task can call, shaped like the real service's results and
 * errors so Retry/Catch/ResultSelector behave as deployed.
 */

/** A JSON round trip, as a real Lambda's or service's response goes through. */
export function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/** What `arn:aws:states:::lambda:invoke` returns; CDK's LambdaInvoke then selects `$.Payload`. */
export function lambdaInvokeResult(payload: unknown): unknown {
  return { ExecutedVersion: '$LATEST', Payload: toJson(payload), StatusCode: 200 };
}

export interface FailureInfo {
  readonly error: string;
  readonly cause: string;
}

/**
 * A Lambda's error as Step Functions reports it: Error = the error type (the thrown error's
 * `name`), Cause = the JSON error payload the Lambda runtime writes.
 */
export function lambdaFailure(error: unknown): FailureInfo {
  if (!(error instanceof Error)) {
    return { error: 'Error', cause: JSON.stringify({ errorType: 'Error', errorMessage: String(error) }) };
  }
  const trace = error.stack?.split('\n').map((line) => line.trim());
  return {
    error: error.name,
    cause: JSON.stringify({ errorType: error.name, errorMessage: error.message, ...(trace && { trace }) }),
  };
}

/** A DynamoDB error as the optimized integration names it, e.g. `DynamoDB.ConditionalCheckFailedException`. */
export function dynamoDbFailure(error: unknown): FailureInfo {
  const name = error instanceof Error ? error.name : 'AmazonDynamoDBException';
  const message = error instanceof Error ? error.message : String(error);
  return {
    error: `DynamoDB.${name}`,
    cause: `${message} (Service: DynamoDb, Status Code: 400, Error Code: ${name})`,
  };
}

/** Calls DynamoDB with the Task's Parameters (low-level AttributeValue format) and returns the API response. */
export async function callDynamoDb(
  client: DynamoDBClient,
  action: DynamoDbAction,
  parameters: unknown,
): Promise<unknown> {
  const response = await send(client, action, parameters);
  const { $metadata: _metadata, ...body } = response;
  return toJson(body);
}

function send(client: DynamoDBClient, action: DynamoDbAction, parameters: unknown) {
  // The Parameters are the API request as written in the definition; DynamoDB validates them.
  switch (action) {
    case 'getItem':
      return client.send(new GetItemCommand(parameters as GetItemCommandInput));
    case 'putItem':
      return client.send(new PutItemCommand(parameters as PutItemCommandInput));
    case 'updateItem':
      return client.send(new UpdateItemCommand(parameters as UpdateItemCommandInput));
    case 'deleteItem':
      return client.send(new DeleteItemCommand(parameters as DeleteItemCommandInput));
  }
}

/**
 * Replaces each placeholder of the static context (a task token, the state's entry time and
 * name) with its value wherever the Parameters hold it, inside longer strings too
 * (`States.Format`).
 */
export function replacePlaceholders(value: unknown, values: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') {
    let replaced = value;
    for (const [placeholder, actual] of Object.entries(values)) {
      if (replaced.includes(placeholder)) replaced = replaced.split(placeholder).join(actual);
    }
    return replaced;
  }
  if (Array.isArray(value)) return value.map((item) => replacePlaceholders(item, values));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replacePlaceholders(item, values)]),
    );
  }
  return value;
}
