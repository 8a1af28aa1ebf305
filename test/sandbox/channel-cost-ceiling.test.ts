import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { utcDay } from '../../lambdas/agents/pricing.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { type SlackMessage as Message, sandboxDriver } from '../support/sandbox-driver.ts';
import { startScriptedModel, text, withUsage } from '../support/scripted-model.ts';

/**
 * channel conversations, in the sandbox: the ChannelResponder's model call
 * is priced with the configured model's default price (claude-sonnet-5-5: $2 in, $10 out per
 * million tokens) and added to the same daily counter as agent turns; once the day's spend
 * reached `agentLimits.maxDailyCostUsd`, a mention is answered, in its thread, with the spent
 * budget and no model call.
 */

const CHANNEL = 'C_COSTS';

let sandbox: Sandbox;
let model: Awaited<ReturnType<typeof startScriptedModel>>;

beforeAll(async () => {
  model = await startScriptedModel({
    // 1,000 in ($0.002) and 60,000 out ($0.60): past the $0.50 ceiling in one answer.
    steps: [withUsage(text('Deploys run at 14:00 UTC.'), { input_tokens: 1_000, output_tokens: 60_000 })],
  });
  sandbox = await workerSandbox({
    config: { channels: { costs: CHANNEL }, agentLimits: { maxDailyCostUsd: 0.5 } },
    env: { ANTHROPIC_BASE_URL: model.baseUrl, ANTHROPIC_API_KEY: 'test-key', MODEL_MAX_RETRIES: '0' },
    logLevel: 'SILENT',
  });
});

afterAll(async () => {
  await sandbox?.stop();
  await model?.close();
});

const driver = sandboxDriver(() => sandbox);

async function botMessages(count: number, threadTs?: string): Promise<Message[]> {
  return eventually(
    async () => {
      await sandbox.idle();
      return (await driver.messages(CHANNEL, threadTs)).filter((m) => m.bot);
    },
    (bot) => bot.length >= count,
    `${count} bot messages`,
    20_000,
  );
}

describe('the daily cost ceiling in a channel conversation', () => {
  it("counts the responder's answer in the day's spend, then answers a mention in its thread with the spent budget and no model call", async () => {
    const spend = new DynamoDailySpend({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    const today = utcDay(new Date());
    await driver.mention(CHANNEL, 'U_ALICE', 'when do deploys run?');
    const [answer] = await botMessages(1);
    expect(answer?.text).toBe('Deploys run at 14:00 UTC.');
    expect(await spend.spentOn(today)).toBe(602_000);

    // A reply in the bot's thread is an explicit trigger; the ceiling is reached, so no model call.
    await driver.post(CHANNEL, 'U_BOB', 'and on Fridays?', answer?.ts);
    // The thread's listing starts with its parent, the bot's answer.
    const inThread = (await botMessages(2, answer?.ts)).filter((m) => m.ts !== answer?.ts);
    const reason =
      'the platform reached its spending ceiling of $0.50 of estimated model cost for today ' +
      `(${today}, UTC); it resets at midnight UTC`;
    expect(inThread.map((m) => m.text)).toEqual([
      `Sorry, I can't answer that today: the platform's daily model budget is spent (${reason}).`,
    ]);
    expect(model.requests).toHaveLength(1);
    expect(model.failures).toEqual([]);
    expect(await spend.spentOn(today)).toBe(602_000);
  });
});
