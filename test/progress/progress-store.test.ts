import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPostLedger } from '../../lambdas/adapters/dynamo-post-ledger.ts';
import { DynamoProgressStore } from '../../lambdas/adapters/dynamo-progress-store.ts';
import type { ProgressRecord } from '../../lambdas/progress/ports.ts';
import { TurnProgress } from '../../lambdas/progress/turn-progress.ts';
import { createProgressClient } from '../../lambdas/slack/progress-client.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { startDynalite } from '../support/dynalite.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/** The progress record in DynamoDB, and a retried turn with the real post ledger against a misbehaving fake Slack. */

const TOKEN = 'xoxb-sandbox-token';
let db: Awaited<ReturnType<typeof startDynalite>>;
let slack: FakeSlack;
let server: FakeSlackServer;

beforeAll(async () => {
  db = await startDynalite();
  slack = new FakeSlack({ botToken: TOKEN, channels: [{ id: 'C_INCIDENTS', name: 'incidents' }] });
  server = await listenFakeSlack(slack);
});
afterAll(async () => {
  await server?.close();
  await db?.close();
});

describe('the progress record', () => {
  it('keeps the message, its tasks and its plan with the conversation', async () => {
    const store = new DynamoProgressStore({ client: db.client, tableName: db.tableName });
    const record: ProgressRecord = {
      key: 'progress:3',
      channel: 'C_INCIDENTS',
      threadTs: '100.000001',
      ts: '100.000002',
      kind: 'stream',
      open: true,
      tasks: [
        {
          id: 'toolu_1',
          title: 'Querying checkout logs 14:00-14:15',
          status: 'complete',
          output: '12 events',
        },
        { id: 'toolu_2', title: 'Reading the service map', status: 'in_progress' },
      ],
      plan: {
        title: 'Investigating the incident',
        steps: [{ id: 'stage:triage', title: 'Triage', status: 'in_progress' }],
      },
      startedAt: '2015-11-27T01:00:00.000Z',
      closing: ':white_check_mark: Done: 2 steps in 4 s',
      replacedBy: '1448586000.000200',
    };
    await store.save('incident-1', record);
    expect(await store.load('incident-1')).toEqual(record);
    expect(await store.load('incident-2')).toBeUndefined();
  });
});

describe('a retried turn with the real post ledger', () => {
  it('posts its progress message once when Slack took the post but lost the answer', async () => {
    const threadTs = slack.postAsBot({ channel: 'C_INCIDENTS', text: ':rotating_light: Incident' }).ts;
    slack.faults.add({ kind: 'accepted_then_error', method: 'chat.postMessage', count: 1 });
    const deps = {
      slack: createProgressClient({ token: TOKEN, slackApiUrl: server.slackApiUrl }),
      store: new DynamoProgressStore({ client: db.client, tableName: db.tableName }),
      posts: new DynamoPostLedger({ client: db.client, tableName: db.tableName }),
      clock: { now: () => new Date() },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      pacing: { intervalMs: 0 },
      showAfterMs: 0,
    };
    const target = {
      conversationId: 'incident-retry',
      turn: 1,
      channel: 'C_INCIDENTS',
      threadTs,
      assistantThread: false,
    };
    const first = new TurnProgress(target, deps);
    first.begin();
    first.toolStarted({ id: 'toolu_1', name: 'service_map', input: {} });
    await first.finish({ kind: 'continues' });

    const retry = new TurnProgress(target, deps);
    retry.begin();
    retry.toolFinished(
      { id: 'toolu_1', name: 'service_map', input: {} },
      { output: '4 services', failed: false },
    );
    await retry.finish({ kind: 'done' });

    const replies = slack
      .messages({ channel: 'C_INCIDENTS', thread_ts: threadTs })
      .filter((m) => m.bot && m.ts !== threadTs);
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(replies[0]?.blocks)).toContain('Reading the service map');
    expect(JSON.stringify(replies[0]?.blocks)).toContain('4 services');
    expect(slack.apiCalls('chat.postMessage').filter((c) => c.outcome === 'ok')).toHaveLength(0);
  });
});
