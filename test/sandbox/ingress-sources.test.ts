import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { EVENTBRIDGE_PATH, type Sandbox } from '../../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import {
  alarmStateChange,
  githubExample,
  githubHeaders,
  pagerdutyIncident,
  pagerdutyRequest,
} from '../ingress/webhooks.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/**
 * Triggers beyond Slack end to end, and the answer to a reply after a
 * conversation ended: signed GitHub and PagerDuty deliveries to the
 * sandbox's ingress, and CloudWatch alarm events as the EventBridge rule delivers them, go
 * through the FIFO inbox and the Router to the kernel_probe workflow, which reports in a
 * thread of its probe channel.
 */

const PROBE = 'C_PROBE';
const REPOSITORY = 'Codertocat/Hello-World';
let sandbox: Sandbox;
let store: DynamoConversationStore;

beforeAll(async () => {
  sandbox = await workerSandbox({
    timeScale: 0.001,
    modules: [KERNEL_PROBE_MODULE],
    config: { channels: { probe: PROBE } },
    logLevel: 'SILENT',
  });
  store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
});
afterAll(async () => sandbox?.stop());

const driver = sandboxDriver(() => sandbox, { stallMs: 25_000 });
const messages = (threadTs?: string) => driver.messages(PROBE, threadTs);
const { eventually } = driver;

/** The probe's thread for a conversation from outside Slack: the bot's "probe conversation from" post. */
async function reportThread(kind: string, existing: ReadonlySet<string>): Promise<string> {
  const root = await eventually(
    async () =>
      (await messages()).find(
        (m) => m.bot && m.text === `probe conversation from ${kind}` && !existing.has(m.ts),
      ),
    (m) => m !== undefined,
    `the probe's ${kind} thread`,
  );
  return root?.ts ?? '';
}

const replies = async (threadTs: string) =>
  (await messages(threadTs)).filter((m) => m.bot && m.ts !== threadTs).map((m) => m.text);

const threadRoots = async () => new Set((await messages()).map((m) => m.ts));

async function deliverGithub(
  event: string,
  payload: unknown,
  options: { deliveryId?: string; signWith?: string } = {},
) {
  const body = JSON.stringify(payload);
  const headers = await githubHeaders({ event, body, secret: sandbox.webhookSecrets.github, ...options });
  return fetch(`${sandbox.url}/github/events`, { method: 'POST', headers, body });
}

async function waitIsOpen(conversationId: string) {
  await eventually(
    () => store.getConversation(conversationId, { consistent: true }),
    (c) => c?.wait !== undefined,
    'the wait to open',
  );
}

describe('GitHub webhooks through the inbox and the Router', () => {
  it('starts an execution for a labelled issue and wakes its wait with a comment; a forged comment does nothing', async () => {
    const before = await threadRoots();
    const labeled = githubExample('issues', 'labeled', new Date());

    const response = await deliverGithub('issues', labeled);

    expect(response.status).toBe(202);
    const thread = await reportThread('github', before);
    await eventually(
      () => replies(thread),
      (r) => r.length === 1,
      'the first turn',
    );
    const conversationId = conversationIdFor('kernel_probe', `github:${REPOSITORY}`, '1');
    const started = await store.getConversation(conversationId, { consistent: true });
    expect(started).toMatchObject({ workflow: 'kernel_probe', ownerId: 'github:Codertocat' });
    expect(Object.values(started?.anchors ?? {})).toContainEqual(
      expect.objectContaining({ channel: `github:${REPOSITORY}`, threadTs: '1' }),
    );
    await waitIsOpen(conversationId);

    const forged = await deliverGithub(
      'issue_comment',
      githubExample('issue_comment', 'created', new Date()),
      {
        signWith: 'not-the-webhook-secret',
      },
    );
    expect(forged.status).toBe(401);
    const comment = await deliverGithub(
      'issue_comment',
      githubExample('issue_comment', 'created', new Date()),
    );
    expect(comment.status).toBe(202);

    expect(
      await eventually(
        () => replies(thread),
        (r) => r.length === 2,
        'the comment to wake the wait',
      ),
    ).toEqual(['probe turn 1 got 1 message(s)', 'probe turn 2 got 1 message(s)']);
    const stored = await store.listMessages(conversationId);
    expect(stored.filter((m) => m.senderType !== 'bot').map((m) => m.text)).toEqual([
      expect.stringMatching(/^\[GitHub issue Codertocat\/Hello-World#1 labeled "bug"\] Spelling error/),
      expect.stringMatching(/^\[GitHub comment on Codertocat\/Hello-World#1\] You are totally right/),
    ]);
  });

  it('accepts a delivery no workflow wants with 2xx and starts nothing', async () => {
    const before = sandbox.stepFunctions.listExecutions().length;
    const unlabeled = githubExample('issues', 'unlabeled', new Date());

    const response = await deliverGithub('issues', unlabeled);

    expect(response.status).toBe(202);
    await sandbox.idle();
    expect(sandbox.stepFunctions.listExecutions()).toHaveLength(before);
  });
});

describe('alerts through the inbox and the Router', () => {
  it('starts an execution for a configured alarm going into ALARM and wakes it when the alarm is OK again', async () => {
    const before = await threadRoots();
    const wentToAlarm = new Date();

    const alarm = await fetch(`${sandbox.url}${EVENTBRIDGE_PATH}`, {
      method: 'POST',
      body: JSON.stringify(
        alarmStateChange({ alarmName: 'probe-checkout-5xx', state: 'ALARM', at: wentToAlarm }),
      ),
    });

    expect(alarm.status).toBe(200);
    const thread = await reportThread('alert', before);
    await eventually(
      () => replies(thread),
      (r) => r.length === 1,
      'the first turn',
    );
    const [conversation] = (await listConversations()).filter((c) => c.id.includes('alert-cloudwatch'));
    if (conversation === undefined) throw new Error('no alert conversation');
    await waitIsOpen(conversation.id);

    await fetch(`${sandbox.url}${EVENTBRIDGE_PATH}`, {
      method: 'POST',
      body: JSON.stringify(
        alarmStateChange({
          alarmName: 'probe-checkout-5xx',
          state: 'OK',
          at: new Date(),
          previousAt: wentToAlarm,
        }),
      ),
    });

    await eventually(
      () => replies(thread),
      (r) => r.length === 2,
      'the OK to wake the wait',
    );
  });

  it('ignores an alarm no workflow takes', async () => {
    const response = await fetch(`${sandbox.url}${EVENTBRIDGE_PATH}`, {
      method: 'POST',
      body: JSON.stringify(
        alarmStateChange({ alarmName: 'billing-latency', state: 'ALARM', at: new Date() }),
      ),
    });

    expect(response.status).toBe(200);
    await sandbox.idle();
    expect((await listConversations()).filter((c) => c.id.includes('billing'))).toEqual([]);
  });

  it('starts an execution for a signed PagerDuty incident.triggered and refuses a forged one', async () => {
    const before = await threadRoots();
    const body = JSON.stringify(pagerdutyIncident({ incidentId: 'PD1', at: new Date() }));
    const forgedBody = JSON.stringify(pagerdutyIncident({ incidentId: 'PD2', at: new Date() }));

    const forged = await fetch(
      `${sandbox.url}/pagerduty/events`,
      pagerdutyInit(forgedBody, 'not-the-secret'),
    );
    const response = await fetch(
      `${sandbox.url}/pagerduty/events`,
      pagerdutyInit(body, sandbox.webhookSecrets.pagerduty),
    );

    expect([forged.status, response.status]).toEqual([401, 202]);
    const thread = await reportThread('alert', before);
    await eventually(
      () => replies(thread),
      (r) => r.length === 1,
      'the first turn',
    );
    const ids = (await listConversations()).map((c) => c.id);
    expect(ids).toContainEqual(conversationIdFor('kernel_probe', 'alert:pagerduty', 'PD1'));
    expect(ids).not.toContainEqual(conversationIdFor('kernel_probe', 'alert:pagerduty', 'PD2'));
  });
});

describe('a reply after the conversation ended', () => {
  it('is answered in the thread with how to start a new conversation instead of silence', async () => {
    const root = await postSlack('U_REPORTER', 'the cart forgets items');
    await eventually(
      () => replies(root),
      (r) => r.length === 1,
      'the first turn',
    );
    const conversationId = conversationIdFor('kernel_probe', PROBE, root);
    await waitIsOpen(conversationId);
    await postSlack('U_REPORTER', 'never mind', root);
    await eventually(
      () => store.getConversation(conversationId, { consistent: true }),
      (c) => c?.status === 'resolved',
      'the close',
    );

    await postSlack('U_REPORTER', 'it still crashes on Safari', root);

    const answered = await eventually(
      () => replies(root),
      (r) => r.length === 3,
      'the answer after the end',
    );
    expect(answered[2]).toBe(
      `This conversation has ended (resolved), so this reply was not passed on. To start a new one, post a new message in <#${PROBE}>.`,
    );
  });
});

const postSlack = (user: string, text: string, threadTs?: string) => driver.post(PROBE, user, text, threadTs);

async function listConversations(): Promise<{ id: string }[]> {
  return (await driver.api<{ conversations: { id: string }[] }>('/sandbox/conversations')).conversations;
}

function pagerdutyInit(body: string, secret: string): RequestInit {
  const { headers } = pagerdutyRequest(body, [secret]);
  return { method: 'POST', headers: headers as Record<string, string>, body };
}
