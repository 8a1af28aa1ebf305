import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { EndedNotice, RouterDeps } from '../../lambdas/kernel/route-types.ts';
import type { WorkflowRegistration } from '../../lambdas/kernel/workflows.ts';
import { startDynalite } from './dynalite.ts';
import { RecordingExecutions } from './recording-executions.ts';
import { recordIn, routerDeps } from './router-deps.ts';

/** What a Router test reads and hands `routeEnvelope`: renewed before each test but the table. */
export interface RouterFixture {
  db: Awaited<ReturnType<typeof startDynalite>>;
  store: DynamoConversationStore;
  /** The executions the Router started in this test. */
  executions: RecordingExecutions;
  /** The notices the Router posted in this test (an ended or duplicate conversation). */
  notices: EndedNotice[];
  /** This test's number, for ids no earlier test of the file used. */
  seq: number;
  /** The Router's dependencies over `workflows`, at a fixed clock, its notices recorded; the kernel's other ports. */
  deps(): RouterDeps & { store: DynamoConversationStore; executions: RecordingExecutions };
  /** Sets a conversation's status as the state machines do: a direct DynamoDB update of its record. */
  setStatus(conversationId: string, status: string): Promise<void>;
}

/**
 * The Router against dynalite for the tests of one file: registers the file's hooks (one table
 * for the file; executions, notices and `seq` new for each test) and returns what they fill.
 */
export function routerFixture(workflows: readonly WorkflowRegistration[]): RouterFixture {
  const fixture = {
    executions: new RecordingExecutions(),
    notices: [],
    seq: 0,
    deps: () => ({
      ...routerDeps({
        store: fixture.store,
        executions: fixture.executions,
        clock: { now: () => new Date('2015-11-21T12:00:00Z') },
        workflows: [...workflows],
        botUserId: 'U_BOT',
        // The notices of this test, renewed before each.
        endedNotice: (notice: EndedNotice) => recordIn(fixture.notices)(notice),
      }),
      store: fixture.store,
      executions: fixture.executions,
    }),
    setStatus: async (conversationId: string, status: string) => {
      await fixture.db.client.send(
        new UpdateItemCommand({
          TableName: fixture.db.tableName,
          Key: { pk: { S: `CONV#${conversationId}` }, sk: { S: 'META' } },
          UpdateExpression: 'SET #s = :s',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':s': { S: status } },
        }),
      );
    },
  } as unknown as RouterFixture;
  beforeAll(async () => {
    fixture.db = await startDynalite();
    fixture.store = new DynamoConversationStore({
      client: fixture.db.client,
      tableName: fixture.db.tableName,
    });
  });
  afterAll(async () => fixture.db?.close());
  beforeEach(() => {
    fixture.executions = new RecordingExecutions();
    fixture.notices = [];
    fixture.seq += 1;
  });
  return fixture;
}
