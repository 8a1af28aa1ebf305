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
 * Attack: identity by truncation. Conversation ids were cut at 80 characters, so two alarms of
 * one account and region (their ARNs differ only after the 80th character) became one
 * conversation, and the second alarm was swallowed without a word. Replayed through the
 * sandbox's ingress, inbox and Router with the kernel_probe workflow (it takes `probe-*`
 * alarms and every PagerDuty incident, and answers each conversation in a thread of its own).
 */

const PROBE = 'C_PROBE';
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

const driver = sandboxDriver(() => sandbox, { stallMs: 30_000, intervalMs: 50 });
const rootMessages = () => driver.messages(PROBE);
const { eventually } = driver;

const alertThreads = async () =>
  (await rootMessages()).filter((m) => m.bot && m.text === 'probe conversation from alert');

describe('identity without collisions', () => {
  it('gives two alarms of one account and region, whose ARNs share 100 characters, two conversations (regression: the second was swallowed)', async () => {
    const shared = `probe-checkout-service-eu-central-production-${'p'.repeat(60)}`;
    const names = [`${shared}-5xx-rate`, `${shared}-latency-p99`];
    const at = new Date();
    const before = (await alertThreads()).length;

    for (const alarmName of names) {
      const response = await fetch(`${sandbox.url}${EVENTBRIDGE_PATH}`, {
        method: 'POST',
        body: JSON.stringify(alarmStateChange({ alarmName, state: 'ALARM', at })),
      });
      expect(response.status).toBe(200);
    }

    // Both alarms were heard: two threads, two conversations, each with its own alarm.
    await eventually(alertThreads, (threads) => threads.length === before + 2, 'a thread for each alarm');
    const arnOf = (name: string) => `arn:aws:cloudwatch:us-east-1:123456789012:alarm:${name}`;
    const ids = names.map((name) =>
      conversationIdFor(
        'kernel_probe',
        'alert:cloudwatch',
        `${arnOf(name)}@${at.toISOString().replace('Z', '+0000')}`,
      ),
    );
    expect(new Set(ids).size).toBe(2);
    for (const [index, id] of ids.entries()) {
      expect(id.length).toBeLessThanOrEqual(72);
      const conversation = await store.getConversation(id, { consistent: true });
      expect(conversation?.workflow, `conversation of ${names[index]}`).toBe('kernel_probe');
      const [first] = (await store.listMessages(id)).filter((m) => m.senderType !== 'bot');
      expect(first?.text).toContain(names[index]);
    }
    // Each conversation's execution runs under its own name.
    const executions = sandbox.stepFunctions.listExecutions().map((e) => e.name);
    for (const id of ids) expect(executions).toContain(id);
  });

  it('gives two PagerDuty incidents whose long ids differ only in the last character two conversations', async () => {
    const base = `Q${'1ABCDEFGHJKLMNPQRSTUVWXYZ'.repeat(4)}`;
    const before = (await alertThreads()).length;

    for (const incidentId of [`${base}A`, `${base}B`]) {
      const body = JSON.stringify(pagerdutyIncident({ incidentId, at: new Date() }));
      const { headers } = pagerdutyRequest(body, [sandbox.webhookSecrets.pagerduty]);
      const response = await fetch(`${sandbox.url}/pagerduty/events`, {
        method: 'POST',
        headers: headers as Record<string, string>,
        body,
      });
      expect(response.status).toBe(202);
    }

    await eventually(alertThreads, (threads) => threads.length === before + 2, 'a thread for each incident');
    const ids = [`${base}A`, `${base}B`].map((id) =>
      conversationIdFor('kernel_probe', 'alert:pagerduty', id),
    );
    expect(ids[0]).not.toBe(ids[1]);
    for (const id of ids) expect((await store.getConversation(id))?.workflow).toBe('kernel_probe');
  });

  it('stores a GitHub comment delivered under two delivery ids once, and an edit of it as a message of its own (regression: it was handled twice)', async () => {
    const deliver = async (event: string, payload: unknown, deliveryId: string) => {
      const body = JSON.stringify(payload);
      const headers = await githubHeaders({ event, body, secret: sandbox.webhookSecrets.github, deliveryId });
      const response = await fetch(`${sandbox.url}/github/events`, { method: 'POST', headers, body });
      expect(response.status).toBe(202);
    };
    await deliver('issues', githubExample('issues', 'labeled', new Date()), 'label-1');
    const conversationId = conversationIdFor('kernel_probe', 'github:Codertocat/Hello-World', '1');
    await eventually(
      () => store.getConversation(conversationId, { consistent: true }),
      (c) => c?.wait !== undefined,
      'the first wait',
    );
    const comment = githubExample('issue_comment', 'created', new Date()) as {
      comment: { body: string; updated_at: string };
    };

    await deliver('issue_comment', comment, 'delivery-a');
    await deliver('issue_comment', comment, 'delivery-b');
    await sandbox.idle();
    const comments = async () =>
      (await store.listMessages(conversationId)).filter((m) => m.text.startsWith('[GitHub comment'));
    expect(await comments()).toHaveLength(1);

    const edited = structuredClone(comment);
    edited.comment.body = 'Edited: the typo is on line 3.';
    edited.comment.updated_at = new Date(Date.now() + 60_000).toISOString();
    await deliver('issue_comment', { ...edited, action: 'edited' }, 'delivery-c');
    await sandbox.idle();
    expect((await comments()).map((m) => m.text)).toEqual([
      expect.stringContaining('You are totally right'),
      expect.stringContaining('Edited: the typo is on line 3.'),
    ]);
  });
});
