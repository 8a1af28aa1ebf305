import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LABEL } from '../../local/model/demo-model.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxApi } from '../support/sandbox-http.ts';

/**
 * What `SANDBOX_CONFIG='{"model":{"provider":"bedrock"}}' npm run dev` runs without model
 * credentials: every workflow's model calls go through the real Bedrock client and the
 * emulated Bedrock Runtime to the offline demo model.
 */

type Message = { ts: string; bot?: boolean; text: string };
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

const api = sandboxApi(() => sandbox.url);

async function botSays(query: string, accept: (text: string) => boolean): Promise<string> {
  const found = await eventually(
    async () => {
      const { messages } = await api<{ messages: Message[] }>(`/sandbox/slack/messages?${query}`);
      return messages.find((m) => m.bot && accept(m.text));
    },
    (message) => message !== undefined,
    `the bot's answer in ${query}`,
    45_000,
  );
  return found?.text ?? '';
}

describe('the offline demo model behind the emulated Bedrock Runtime', () => {
  it('plays the bug investigator, the requirements interview and answers a channel conversation', async () => {
    const report = await api<{ ts: string }>('/sandbox/slack/post', {
      channel: 'C_BUG_REPORTS',
      user: 'U_REPORTER',
      text: 'something is broken',
    });
    const question = await botSays(`channel=C_BUG_REPORTS&thread_ts=${report.ts}`, (t) =>
      t.includes(DEMO_LABEL),
    );
    expect(question).toContain('reproduce');

    const idea = await api<{ ts: string }>('/sandbox/slack/post', {
      channel: 'C_GENERAL',
      user: 'U_ALICE',
      text: '<@U_BOT> idea: a shared calendar for meeting rooms',
    });
    expect(
      await botSays(`channel=C_GENERAL&thread_ts=${idea.ts}`, (t) => t.includes('Confidence: 50%')),
    ).toContain(DEMO_LABEL);

    await api('/sandbox/slack/post', {
      channel: 'C_GENERAL',
      user: 'U_BOB',
      text: '<@U_BOT> what is on today?',
    });
    expect(await botSays('channel=C_GENERAL', (t) => t.startsWith(DEMO_LABEL))).toContain(
      'this sandbox runs without a real model',
    );

    const models = new Set(sandbox.bedrock.invocations.map((i) => i.modelId));
    expect(models).toEqual(new Set(['global.anthropic.claude-sonnet-5-5']));
    expect(sandbox.bedrock.invocations.every((i) => i.status === 200)).toBe(true);
    expect(sandbox.bedrock.invocations.length).toBeGreaterThanOrEqual(4);
  });
});
