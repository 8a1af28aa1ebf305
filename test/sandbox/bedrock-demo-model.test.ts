import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/**
 * What `SANDBOX_CONFIG='{"model":{"provider":"bedrock"}}' npm run dev` runs without model
 * credentials: every workflow's model calls go through the real Bedrock client and the
 * emulated Bedrock Runtime to the offline demo model.
 */

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await workerSandbox({
    timeScale: 0.001,
    config: { model: { provider: 'bedrock' }, channels: { general: 'C_GENERAL' } },
    logLevel: 'SILENT',
  });
});

afterAll(async () => {
  await sandbox?.stop();
});

const driver = sandboxDriver(() => sandbox);

async function botSays(
  channel: string,
  threadTs: string | undefined,
  accept: (text: string) => boolean,
): Promise<string> {
  const found = await eventually(
    async () => (await driver.messages(channel, threadTs)).find((m) => m.bot && accept(m.text)),
    (message) => message !== undefined,
    `the bot's answer in ${channel}${threadTs ? ` (thread ${threadTs})` : ''}`,
    45_000,
  );
  return found?.text ?? '';
}

describe('the offline demo model behind the emulated Bedrock Runtime', () => {
  it('plays the bug investigator, the requirements interview and answers a channel conversation', async () => {
    const report = await driver.post('C_BUG_REPORTS', 'U_REPORTER', 'something is broken');
    const question = await botSays('C_BUG_REPORTS', report, (t) => t.includes(DEMO_LABEL));
    expect(question).toContain('reproduce');

    const idea = await driver.mention('C_GENERAL', 'U_ALICE', 'idea: a shared calendar for meeting rooms');
    expect(await botSays('C_GENERAL', idea, (t) => t.includes('Confidence: 50%'))).toContain(DEMO_LABEL);

    await driver.mention('C_GENERAL', 'U_BOB', 'what is on today?');
    expect(await botSays('C_GENERAL', undefined, (t) => t.startsWith(DEMO_LABEL))).toContain(
      'this sandbox runs without a real model',
    );

    const models = new Set(sandbox.bedrock.invocations.map((i) => i.modelId));
    expect(models).toEqual(new Set(['global.anthropic.claude-sonnet-5-5']));
    expect(sandbox.bedrock.invocations.every((i) => i.status === 200)).toBe(true);
    expect(sandbox.bedrock.invocations.length).toBeGreaterThanOrEqual(4);
  });
});
