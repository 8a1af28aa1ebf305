import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  readRecord,
  SCHEMA_VERSION_ATTRIBUTE,
  type StoredItem,
  writeVersionOf,
} from '../kernel/record-versions.ts';

const MIDDLEWARE = 'recordVersionsMiddleware';
const NAME = '#schemaVersion';
const VALUE = ':schemaVersion';

type Input = Record<string, unknown>;

/**
 * Puts record versions (kernel/record-versions.ts) in front of every command of the document
 * client. A put item (`Put`, `BatchWrite`, `TransactWrite`) gets its kind's current
 * `schemaVersion`; an update gives one only to an item without it (an update writes some fields,
 * not a whole shape, so it never relabels a record; the item it creates gets the current
 * version). A projection also reads `schemaVersion`. Every item read (`Get`, `BatchGet`, `Query`,
 * `Scan`, the attributes a write returns) is upgraded to the current version and loses the
 * attribute; a version this release cannot read fails the read with
 * `RecordVersionNotReadableError`.
 */
export function withRecordVersions(doc: DynamoDBDocumentClient): DynamoDBDocumentClient {
  // A document client shares its middleware with the DynamoDB client it wraps: one layer per client.
  if (doc.middlewareStack.identify().some((entry) => entry.startsWith(`${MIDDLEWARE} `))) return doc;
  doc.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as Input;
      if (!isDocumentForm(input)) return next(args);
      versionWrite(input);
      const result = await next(args);
      readOutput(input, result.output as Input);
      return result;
    },
    { step: 'initialize', priority: 'high', name: MIDDLEWARE },
  );
  return doc;
}

/** The low-level client's commands carry marshalled keys (`{ S: ... }`): not this layer's. */
function isDocumentForm(input: Input): boolean {
  const sample = [input.Key, input.Item].find(isRecord);
  return sample === undefined || typeof sample.pk !== 'object';
}

function versionWrite(input: Input): void {
  if (isRecord(input.Item))
    input.Item = { ...input.Item, [SCHEMA_VERSION_ATTRIBUTE]: writeVersionOf(input.Item) };
  if (typeof input.UpdateExpression === 'string' && isRecord(input.Key)) versionUpdate(input, input.Key);
  if (typeof input.ProjectionExpression === 'string') {
    input.ProjectionExpression = `${input.ProjectionExpression}, ${NAME}`;
    input.ExpressionAttributeNames = {
      ...asRecord(input.ExpressionAttributeNames),
      [NAME]: SCHEMA_VERSION_ATTRIBUTE,
    };
  }
  if (Array.isArray(input.TransactItems)) {
    for (const item of input.TransactItems) {
      if (!isRecord(item)) continue;
      for (const write of [item.Put, item.Update]) if (isRecord(write)) versionWrite(write);
    }
  }
  if (isRecord(input.RequestItems)) {
    for (const requests of Object.values(input.RequestItems)) {
      if (Array.isArray(requests)) {
        for (const request of requests)
          if (isRecord(request) && isRecord(request.PutRequest)) versionWrite(request.PutRequest);
      } else if (isRecord(requests) && typeof requests.ProjectionExpression === 'string') {
        versionWrite(requests);
      }
    }
  }
}

function versionUpdate(input: Input, key: Input): void {
  const set = `${NAME} = if_not_exists(${NAME}, ${VALUE})`;
  const expression = String(input.UpdateExpression);
  // One SET clause per expression: join it when there is one, else add one.
  const clause = /(^|\s)SET\s/.exec(expression);
  input.UpdateExpression =
    clause === null
      ? `${expression} SET ${set}`
      : `${expression.slice(0, clause.index)}${clause[1]}SET ${set}, ${expression.slice(clause.index + clause[0].length)}`;
  input.ExpressionAttributeNames = {
    ...asRecord(input.ExpressionAttributeNames),
    [NAME]: SCHEMA_VERSION_ATTRIBUTE,
  };
  input.ExpressionAttributeValues = {
    ...asRecord(input.ExpressionAttributeValues),
    [VALUE]: writeVersionOf(key),
  };
}

function readOutput(input: Input, output: Input | undefined): void {
  if (output === undefined) return;
  const key = isRecord(input.Key) ? input.Key : undefined;
  if (isRecord(output.Item)) output.Item = readRecord(key ?? output.Item, output.Item);
  if (isRecord(output.Attributes)) output.Attributes = readAttributes(input, output.Attributes);
  if (Array.isArray(output.Items)) output.Items = output.Items.map((item) => readKeyed(item));
  if (isRecord(output.Responses)) {
    for (const [table, items] of Object.entries(output.Responses)) {
      if (Array.isArray(items)) output.Responses[table] = items.map((item) => readKeyed(item));
    }
  }
}

function readAttributes(input: Input, attributes: StoredItem): StoredItem {
  const key = isRecord(input.Key) ? input.Key : isRecord(input.Item) ? input.Item : attributes;
  // UPDATED_NEW and UPDATED_OLD return some attributes, not a record: only the version goes.
  if (input.ReturnValues === 'UPDATED_NEW' || input.ReturnValues === 'UPDATED_OLD') {
    const { [SCHEMA_VERSION_ATTRIBUTE]: _version, ...fields } = attributes;
    return fields;
  }
  return readRecord(key, attributes);
}

function readKeyed(item: unknown): unknown {
  return isRecord(item) ? readRecord(item, item) : item;
}

function asRecord(value: unknown): Input {
  return isRecord(value) ? value : {};
}

function isRecord(value: unknown): value is Input {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}
