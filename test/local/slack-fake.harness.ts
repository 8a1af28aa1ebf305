import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach } from 'vitest';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';

/**
 * A fake Slack workspace of its own for each test, served on a local port, and the real
 * `@slack/web-api` WebClient pointed at it with the bot's token: what slack-fake.test.ts and
 * slack-fake-events.test.ts both test through.
 */

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

export const BOT_TOKEN = 'xoxb-sandbox-token';

// Set before each test by the hooks `fakeSlackForEachTest` registers; an importer reads the
// current test's (exported bindings are live).
export let slack: FakeSlack;
export let server: FakeSlackServer;
export let client: WebClient;

/** Registers the file's hooks: a new workspace, server and client before each test, closed after it. */
export function fakeSlackForEachTest(): void {
  beforeEach(async () => {
    slack = new FakeSlack({
      botToken: BOT_TOKEN,
      botUserId: 'U_BOT',
      botId: 'B_BOT',
      channels: [
        { id: 'C_BUG_REPORTS', name: 'bug-reports' },
        { id: 'C_DEVS', name: 'developers' },
      ],
      users: [
        { id: 'U_REPORTER', name: 'rita', realName: 'Rita Reporter' },
        { id: 'U_DEV', name: 'dev' },
      ],
    });
    server = await listenFakeSlack(slack);
    client = new WebClient(BOT_TOKEN, { slackApiUrl: server.slackApiUrl, retryConfig: { retries: 0 } });
  });

  afterEach(async () => {
    await slack.settled();
    await server.close();
  });
}
