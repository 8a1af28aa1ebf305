import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { resolveBotUserId } from '../../lambdas/adapters/bot-user-id.ts';
import { createSlackApiHandler } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';

describe("the bot's own user id", () => {
  it('is the configured one when set, without asking Slack', async () => {
    const asked: string[] = [];
    const id = await resolveBotUserId({ SLACK_BOT_USER_ID: 'U0CONFIGURED' }, async () => {
      asked.push('auth.test');
      return 'U0OTHER';
    });
    expect(id).toBe('U0CONFIGURED');
    expect(asked).toEqual([]);
  });

  it("is read once from Slack's auth.test with the bot token, and kept in the environment", async () => {
    const slack = new FakeSlack({ botToken: 'xoxb-bot', botUserId: 'U0FROMSLACK' });
    const handler = createSlackApiHandler(slack);
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env: NodeJS.ProcessEnv = {
      SLACK_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
      SLACK_BOT_TOKEN: 'xoxb-bot',
      SLACK_SIGNING_SECRET: 'signing',
    };
    try {
      expect(await resolveBotUserId(env)).toBe('U0FROMSLACK');
      expect(env.SLACK_BOT_USER_ID).toBe('U0FROMSLACK');
      expect(await resolveBotUserId(env)).toBe('U0FROMSLACK');
      expect(slack.apiCalls('auth.test')).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('fails the event when Slack names no user, and asks again next time', async () => {
    const env: NodeJS.ProcessEnv = {};
    await expect(resolveBotUserId(env, async () => undefined)).rejects.toMatchObject({
      name: 'BotIdentityError',
      message: 'auth.test named no user: is the token a bot token (xoxb-)?',
    });
    expect(await resolveBotUserId(env, async () => 'U0SECOND')).toBe('U0SECOND');
  });
});
