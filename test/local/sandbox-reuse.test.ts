import { existsSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { type ReusableSandbox, startReusableSandbox } from '../../local/sandbox.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { PROBE_CHANNEL, PROBE_SANDBOX } from '../support/probe-sandbox.ts';
import { sandboxApi } from '../support/sandbox-http.ts';
import { sandboxReuseKey } from '../support/sandbox-reuse-key.ts';

/**
 * A sandbox that serves one test file after another (`startReusableSandbox`): what "file A"
 * leaves (a conversation waiting in its execution, table items, Slack messages, a queued
 * message, a GitHub issue, a model fault, a build) is gone after `release()` and `renew()`,
 * nothing A's stopped execution did reaches the new world, and a conversation started after
 * the reset runs to its answer.
 */

const PROBE = PROBE_CHANNEL;
const OPTIONS = PROBE_SANDBOX;
const credentials = { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' };

let reusable: ReusableSandbox;
beforeAll(async () => {
  reusable = await startReusableSandbox(OPTIONS);
});
afterAll(async () => reusable?.close());

const api = <T>(sandbox: Sandbox, path: string, body?: unknown): Promise<T> =>
  sandboxApi(() => sandbox.url)<T>(path, body);

type Message = { ts: string; bot?: boolean; text: string };
const report = async (sandbox: Sandbox, text: string) =>
  (await api<{ ts: string }>(sandbox, '/sandbox/slack/post', { channel: PROBE, user: 'U_REPORTER', text }))
    .ts;
const thread = async (sandbox: Sandbox, ts: string) =>
  (await api<{ messages: Message[] }>(sandbox, `/sandbox/slack/messages?channel=${PROBE}&thread_ts=${ts}`))
    .messages;
const items = async (sandbox: Sandbox) =>
  (await sandbox.dynamodb.send(new ScanCommand({ TableName: sandbox.tableName }))).Items ?? [];
const octokit = (sandbox: Sandbox) =>
  new Octokit({ baseUrl: sandbox.github.apiUrl, auth: sandbox.github.createUserToken('demo-maintainer') });
const sqsOf = (sandbox: Sandbox) =>
  new SQSClient({ endpoint: sandbox.url, region: 'us-east-1', credentials });

describe('a reusable sandbox', () => {
  it('keys option sets by what a fresh world cannot change: not the port or the model server', () => {
    const withModel = (url: string) => ({
      ...OPTIONS,
      env: { ANTHROPIC_BASE_URL: url, MODEL_MAX_RETRIES: '0' },
    });
    expect(sandboxReuseKey(withModel('http://127.0.0.1:1'))).toBe(
      sandboxReuseKey({ ...withModel('http://127.0.0.1:2'), port: 0 }),
    );
    expect(sandboxReuseKey(withModel('http://127.0.0.1:1'))).not.toBe(sandboxReuseKey(OPTIONS));
    expect(sandboxReuseKey({ ...OPTIONS, timeScale: 0.01 })).not.toBe(sandboxReuseKey(OPTIONS));
    expect(sandboxReuseKey({ ...OPTIONS, config: { channels: { probe: 'C_OTHER' } } })).not.toBe(
      sandboxReuseKey(OPTIONS),
    );
    expect(sandboxReuseKey({ ...OPTIONS, clock: 'manual' })).not.toBe(sandboxReuseKey(OPTIONS));
  });

  it("leaves nothing of file A after the reset, stops A's execution, and runs file B's conversation", async () => {
    // File A: a conversation waiting for the reporter, and state in every emulator.
    const a = reusable.sandbox;
    const rootA = await report(a, 'the checkout total is wrong');
    const idA = conversationIdFor('kernel_probe', PROBE, rootA);
    await eventually(
      () => thread(a, rootA),
      (m) => m.some((x) => x.bot),
      'the first answer in A',
    );
    await eventually(
      async () => a.stepFunctions.listExecutions({}).filter((e) => e.status === 'RUNNING').length,
      (running) => running === 1,
      "A's execution waiting",
    );
    expect((await items(a)).length).toBeGreaterThan(0);
    const issue = await octokit(a).issues.create({ owner: 'demo', repo: 'webshop', title: 'left by file A' });
    await api(a, '/sandbox/faults', { target: 'model', kind: 'overloaded', count: 5 });
    const queueUrl = (await sqsOf(a).send(new ListQueuesCommand({}))).QueueUrls?.find(
      (u) => !u.includes('inbox'),
    );
    expect(queueUrl).toBeDefined();
    await sqsOf(a).send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"left":"by file A"}',
        MessageGroupId: 'a',
        MessageDeduplicationId: 'a',
      }),
    );

    expect(await reusable.release()).toBe(true);
    expect(a.stepFunctions.listExecutions({})).toEqual([]);
    const b = await reusable.renew({ ...OPTIONS });
    expect(b.url).toBe(a.url);

    // Nothing of A is visible in B.
    expect(await items(b)).toEqual([]);
    await expect(thread(b, rootA)).rejects.toThrow(/thread_not_found/);
    expect(b.slack.workspace.messages({ channel: PROBE })).toEqual([]);
    expect(b.stepFunctions.listExecutions({})).toEqual([]);
    expect((await api<{ model: unknown[] }>(b, '/sandbox/faults')).model).toEqual([]);
    const issues = await octokit(b).issues.listForRepo({ owner: 'demo', repo: 'webshop', state: 'all' });
    expect(issues.data.map((i) => i.title)).not.toContain('left by file A');
    await expect(
      octokit(b).issues.get({ owner: 'demo', repo: 'webshop', issue_number: issue.data.number }),
    ).rejects.toMatchObject({ status: 404 });
    const received = await sqsOf(b).send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }),
    );
    expect(received.Messages ?? []).toEqual([]);

    // B's own conversation runs to its first answer, and A's stopped execution wrote nothing.
    const rootB = await report(b, 'the discount is applied twice');
    const answered = await eventually(
      () => thread(b, rootB),
      (m) => m.some((x) => x.bot),
      'the answer in B',
    );
    expect(answered.filter((m) => m.bot).map((m) => m.text)).toEqual(['probe turn 1 got 1 message(s)']);
    const stored = JSON.stringify(await items(b));
    expect(stored).toContain(conversationIdFor('kernel_probe', PROBE, rootB));
    expect(stored).not.toContain(idA);
    expect(b.stepFunctions.listExecutions({}).map((e) => e.name)).not.toContain(idA);
  });

  it("unpacks the code tools' trees in a directory of its own, kept across files, removed when it closes", async () => {
    await reusable.release();
    const other = await startReusableSandbox(OPTIONS);
    const otherDirectory = process.env.CODE_CACHE_DIR;
    await other.close();
    await reusable.renew(OPTIONS);
    const directory = process.env.CODE_CACHE_DIR ?? '';
    // Two sandboxes (two test workers, say) never share one: their demo repositories make the
    // same commits, and one's eviction would remove the tree the other reads.
    expect(directory).toMatch(/sandbox-code-tools-/);
    expect(directory).not.toBe(otherDirectory);
    expect(existsSync(directory)).toBe(true);
    expect(otherDirectory !== undefined && existsSync(otherDirectory)).toBe(false);
    await reusable.release();
    await reusable.renew(OPTIONS);
    expect(process.env.CODE_CACHE_DIR).toBe(directory);
    await reusable.close();
    expect(existsSync(directory)).toBe(false);
  });
});
