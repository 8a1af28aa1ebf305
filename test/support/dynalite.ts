import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';

/** An in-process dynalite with the kernel's table, for tests that need the real DynamoDB protocol. */
export async function startDynalite(tableName = 'Conversations') {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dynalite did not bind a TCP port');
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  return {
    client,
    endpoint,
    tableName,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The environment the real handlers need to reach this dynalite (their `kernelDeps()` read it). */
export function handlerEnvironment(db: { tableName: string; endpoint: string }): Record<string, string> {
  return {
    TABLE_NAME: db.tableName,
    // Configured, as the sandbox configures it: without it the handlers ask Slack's auth.test.
    SLACK_BOT_USER_ID: 'U_BOT',
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };
}
