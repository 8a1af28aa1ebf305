import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { ConversationNotFoundError } from '../../lambdas/kernel/errors.ts';
import { startDynalite } from '../support/dynalite.ts';

let db: Awaited<ReturnType<typeof startDynalite>>;
beforeAll(async () => {
  db = await startDynalite('Conversations');
});
afterAll(async () => {
  await db.close();
});

const clientWith = (logger?: { lines: unknown[] }) =>
  new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    ...(logger && {
      logger: {
        debug: () => {},
        info: (line: unknown) => logger.lines.push(line),
        warn: () => {},
        error: () => {},
      },
    }),
  });

describe("the SDK's logger middleware on the table's clients", () => {
  it('is taken off a client whose logger drops everything, and the store still reads and writes', async () => {
    const client = clientWith();
    const store = new DynamoConversationStore({ client, tableName: db.tableName });
    expect(client.middlewareStack.identify().filter((entry) => entry.startsWith('loggerMiddleware'))).toEqual(
      [],
    );
    expect(await store.getConversation('conversation-without-logger')).toBeUndefined();
    // A conditional write, refused by the table: the refusal still reaches the store.
    await expect(store.requestStop('conversation-without-logger')).rejects.toThrow(ConversationNotFoundError);
    client.destroy();
  });

  it("stays on a client given a logger of the caller's, which hears every call", async () => {
    const logger = { lines: [] as unknown[] };
    const client = clientWith(logger);
    const store = new DynamoConversationStore({ client, tableName: db.tableName });
    expect(
      client.middlewareStack.identify().filter((entry) => entry.startsWith('loggerMiddleware')),
    ).toHaveLength(1);
    await store.getConversation('conversation-with-logger');
    expect(logger.lines).toEqual([
      expect.objectContaining({ clientName: 'DynamoDBClient', commandName: 'GetItemCommand' }),
    ]);
    client.destroy();
  });
});
