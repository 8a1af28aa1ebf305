import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { DynamoFeedbackStore } from '../../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import { probeAgent } from '../../lambdas/workflows/kernel-probe/profile.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';
import { startScriptedModel, submit, systemText } from '../support/scripted-model.ts';

/**
 * The probe's agent (`kernel_probe_agent`), end to end in the sandbox: everything it brings is
 * declared in its module and its own folders (statemachines/probe.ts, statemachines/kernel-probe/,
 * lambdas/workflows/kernel-probe/): its slash command, taken from its settings, starts it; its
 * agent turn answers; its SlackPost posts the answer with the feedback buttons of its answer
 * kind; and a press on them is acknowledged with the name its module gave that kind.
 */

const CHANNEL = 'C_PROBE';
// A person of the fake workspace (local/sandbox-slack.ts): feedback acknowledgements go to known users.
const ASKER = 'U_REPORTER';
let sandbox: Sandbox;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

beforeAll(async () => {
  model = await startScriptedModel({
    steps: [submit({ answer: 'Forty-two, by the fixture.' }), submit({ answer: 'Issue 7 is a question.' })],
  });
  sandbox = await workerSandbox({
    modules: [KERNEL_PROBE_MODULE],
    config: {
      channels: { probe: CHANNEL },
      kernelProbe: { command: '/ask-probe', repository: 'acme/probe' },
    },
    env: { ANTHROPIC_BASE_URL: model.baseUrl, ANTHROPIC_API_KEY: 'test-key', MODEL_MAX_RETRIES: '0' },
    logLevel: 'SILENT',
  });
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
  await model?.close();
});

const driver = sandboxDriver(() => sandbox);

describe("the probe's agent", () => {
  it('starts on the command its settings name, answers with its agent turn, and takes feedback on its own answer kind', async () => {
    const asked = await driver.slash({
      command: '/ask-probe',
      text: 'What is the answer?',
      channel: CHANNEL,
      user: ASKER,
      triggerId: 'trigger-probe-agent-1',
    });
    expect(asked.status).toBe(200);

    const opened = await eventually(
      async () =>
        (await driver.messages(CHANNEL)).find((m) => m.bot && m.text.includes("asked the probe's agent")),
      (m) => m !== undefined,
      'the thread the probe agent opens',
    );
    const thread = opened?.ts ?? '';
    const answer = await eventually(
      async () => (await driver.messages(CHANNEL, thread)).find((m) => m.bot && m.ts !== thread),
      (m) => m !== undefined,
      'the answer in the thread',
    );
    expect(answer?.text).toBe('probe agent: Forty-two, by the fixture.');
    // The turn ran the probe's own profile, on the question the command asked.
    expect(model.requests).toHaveLength(1);
    const [request] = model.requests;
    if (request === undefined) throw new Error('the model was not asked');
    expect(systemText(request.body)).toBe(probeAgent.system);
    expect(JSON.stringify(request.body.messages)).toContain('What is the answer?');
    expect(model.failures).toEqual([]);

    const posted = sandbox.slack.workspace.find(CHANNEL, answer?.ts ?? '');
    const block = (posted.blocks as { type: string; block_id?: string }[]).at(-1);
    expect(block).toMatchObject({ type: 'context_actions', block_id: 'feedback:probe_answer' });

    const executions = sandbox.stepFunctions.listExecutions();
    expect(executions).toHaveLength(1);
    const id = executions[0]?.name ?? '';
    const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    const conversation = await eventually(
      () => store.getConversation(id, { consistent: true }),
      (c) => c?.status === 'resolved',
      'the conversation resolved',
    );
    expect(conversation).toMatchObject({ workflow: 'kernel_probe_agent', status: 'resolved' });

    await driver.api('/sandbox/slack/feedback', {
      channel: CHANNEL,
      user: ASKER,
      message_ts: answer?.ts,
      vote: 'up',
    });
    const feedback = new DynamoFeedbackStore({
      client: sandbox.dynamodb,
      tableName: sandbox.tableName,
      retentionDays: 90,
    });
    const stored = await eventually(
      () => feedback.list(id),
      (list) => list.length === 1,
      'the thumbs up stored',
    );
    expect(stored[0]).toMatchObject({
      workflow: 'kernel_probe_agent',
      answerKind: 'probe_answer',
      vote: 'up',
    });
    await eventually(
      async () => sandbox.slack.workspace.ephemerals().filter((e) => e.user === ASKER),
      (list) => list.some((e) => e.text.includes('thumbs up on this probe answer')),
      'the acknowledgement naming the answer kind as the probe declares it',
    );
  });

  it('takes a question naming an issue of its repository once, as its command declares: a repeat is answered that the issue had its run', async () => {
    const ask = (text: string, triggerId: string) =>
      driver.slash({ command: '/ask-probe', text, channel: CHANNEL, user: ASKER, triggerId });
    const before = sandbox.stepFunctions.listExecutions().map((e) => e.name);
    expect((await ask('7', 'trigger-probe-agent-2')).status).toBe(200);
    const started = await eventually(
      async () => sandbox.stepFunctions.listExecutions().filter((e) => !before.includes(e.name)),
      (list) => list.length === 1,
      'the question about issue 7 started',
    );
    const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    await eventually(
      () => store.getConversation(started[0]?.name ?? '', { consistent: true }),
      (c) => c?.status === 'resolved',
      'the question about issue 7 answered',
    );

    expect((await ask('#7', 'trigger-probe-agent-3')).status).toBe(200);
    const notice = await eventually(
      async () => (await driver.messages(CHANNEL)).find((m) => m.bot && m.text.includes('acme/probe#7')),
      (m) => m !== undefined,
      'the answer to the repeated question',
    );
    expect(notice?.text).toContain('acme/probe#7 already had its run (resolved); it is not started again.');
    expect(sandbox.stepFunctions.listExecutions()).toHaveLength(before.length + 1);
    expect(model.requests).toHaveLength(2);
  });
});
