import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { type SlackMessage as Message, sandboxDriver } from '../support/sandbox-driver.ts';
import {
  lastUserText,
  type ModelReply,
  type RecordedModelRequest,
  startScriptedModel,
  text,
  toolUse,
} from '../support/scripted-model.ts';
import { bugIdFor, CHANNELS, findings, REPORTER, submits } from './bug-harness.ts';

/**
 * `model.provider: bedrock` end to end in the sandbox: the handlers build the real
 * `@anthropic-ai/bedrock-sdk` client, which signs with the sandbox's dummy credentials and
 * calls the emulated Bedrock Runtime on the sandbox's port; that endpoint hands the Messages
 * API body to the scripted model. A bug report and a channel conversation run through it.
 */

const GENERAL = 'C_GENERAL';
const MODEL_ID = 'global.anthropic.claude-sonnet-5-5';

let sandbox: Sandbox;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

/** Each request's reply: a bug's turn (history, then findings) or a channel answer. */
function reply(request: RecordedModelRequest): ModelReply {
  const prompt = request.body.messages
    .map((message) => lastUserText({ ...request.body, messages: [message] }))
    .join('\n');
  const bugId = /Bug id: "([^"]+)"/.exec(prompt)?.[1];
  if (bugId === undefined) return text('Deploys run at 14:00 UTC (answered through Bedrock).');
  const last = request.body.messages.at(-1);
  const afterTool =
    Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
  return afterTool
    ? submits(findings('Checkout fails after the payment redirect (via Bedrock).'))(request)
    : toolUse('get_bug_conversations', { bug_id: bugId });
}

beforeAll(async () => {
  model = await startScriptedModel({ steps: reply });
  sandbox = await workerSandbox({
    timeScale: 0.001,
    config: { model: { provider: 'bedrock' }, channels: { general: GENERAL } },
    // The Bedrock emulator fronts ANTHROPIC_BASE_URL; with Bedrock no API key is read.
    env: { ANTHROPIC_BASE_URL: model.baseUrl, MODEL_MAX_RETRIES: '0' },
    logLevel: 'SILENT',
  });
});

afterAll(async () => {
  await sandbox?.stop();
  await model?.close();
});

const driver = sandboxDriver(() => sandbox);

async function botMessages(channel: string, accept: (messages: Message[]) => boolean): Promise<Message[]> {
  return eventually(
    async () => {
      return (await driver.messages(channel)).filter((m) => m.bot);
    },
    accept,
    `the bot in ${channel}`,
    45_000,
  );
}

describe('the Bedrock provider in the sandbox', () => {
  it('investigates a bug report through Bedrock: findings posted, every model call a signed InvokeModel of the configured id', async () => {
    const ts = await driver.post(
      CHANNELS.reports,
      REPORTER,
      'On Safari 17 checkout shows HTTP 500 after I click Pay, every time since version 2.3',
    );
    const posted = await botMessages(CHANNELS.summaries, (bot) =>
      bot.some((m) => m.text.includes('via Bedrock')),
    );

    expect(posted.some((m) => m.text.includes('Checkout fails after the payment redirect'))).toBe(true);
    // One turn: the history tool, then the findings; both requests name this report's bug.
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests)
      expect(JSON.stringify(request.body.messages)).toContain(bugIdFor(ts));
    expect(new Set(model.requests.map((r) => r.body.model))).toEqual(new Set([MODEL_ID]));
    expect(sandbox.bedrock.invocations.length).toBe(model.requests.length);
    for (const invocation of sandbox.bedrock.invocations) {
      expect(invocation).toMatchObject({
        modelId: MODEL_ID,
        status: 200,
        signature: { accessKeyId: 'sandbox', service: 'bedrock', region: 'us-east-1' },
      });
    }
    expect(model.failures).toEqual([]);
  });

  it('answers a channel conversation through Bedrock: the ChannelResponder honours the provider', async () => {
    const before = sandbox.bedrock.invocations.length;
    await driver.mention(GENERAL, 'U_ALICE', 'when do deploys run?');
    const replies = await botMessages(GENERAL, (bot) => bot.length >= 1);

    expect(replies.map((m) => m.text)).toEqual(['Deploys run at 14:00 UTC (answered through Bedrock).']);
    expect(sandbox.bedrock.invocations.slice(before)).toEqual([
      expect.objectContaining({ modelId: MODEL_ID, status: 200 }),
    ]);
    expect(model.failures).toEqual([]);
  });
});
