import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFeedbackStore } from '../../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import { type Sandbox, startSandbox } from '../../local/sandbox.ts';
import { eventually } from '../support/eventually.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';
import { startScriptedModel, text } from '../support/scripted-model.ts';

/**
 * Feedback on a channel answer in the sandbox: the answer carries the feedback buttons naming
 * its channel conversation (which keeps no thread link in the kernel), and a press is stored
 * with that conversation and the question the answer answered.
 */

const CHANNEL = 'C_GENERAL';
let sandbox: Sandbox;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

beforeAll(async () => {
  model = await startScriptedModel({ steps: [text('Deploys run at 14:00 UTC.')] });
  sandbox = await startSandbox({
    port: 0,
    config: { channels: { general: CHANNEL } },
    env: { ANTHROPIC_BASE_URL: model.baseUrl, ANTHROPIC_API_KEY: 'test-key', MODEL_MAX_RETRIES: '0' },
    logLevel: 'SILENT',
  });
});

afterAll(async () => {
  await sandbox?.stop();
  await model?.close();
});

const driver = sandboxDriver(() => sandbox);
const { api } = driver;

describe('feedback on a channel answer', () => {
  it('is stored with its channel conversation and the question it answered', async () => {
    await driver.mention(CHANNEL, 'U_ALICE', 'when do deploys run?');
    const messages = await eventually(
      () => driver.messages(CHANNEL),
      (list) => list.some((m) => m.bot),
      'the answer',
      60_000,
    );
    const answer = messages.find((m) => m.bot);
    const stored = sandbox.slack.workspace.find(CHANNEL, answer?.ts ?? '');
    const block = (stored.blocks as { type: string; block_id?: string }[]).at(-1);
    expect(block?.type).toBe('context_actions');
    expect(block?.block_id).toMatch(/^feedback:channel_answer:channel-C_GENERAL-/);
    const conversationId = block?.block_id?.split(':').slice(2).join(':') ?? '';

    await api('/sandbox/slack/feedback', {
      channel: CHANNEL,
      user: 'U_DEV',
      message_ts: answer?.ts,
      vote: 'up',
    });
    const store = new DynamoFeedbackStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    const feedback = await eventually(
      () => store.list(conversationId),
      (list) => list.length === 1,
      'the feedback',
      60_000,
    );
    expect(feedback[0]).toMatchObject({
      workflow: 'channel_conversations',
      answerKind: 'channel_answer',
      answerText: 'Deploys run at 14:00 UTC.',
      request: '<@U_BOT> when do deploys run?',
      vote: 'up',
      by: 'U_DEV',
    });
    expect(model.failures).toEqual([]);
  });
});
