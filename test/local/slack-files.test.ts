import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

const BOT_TOKEN = 'xoxb-sandbox-token';

let slack: FakeSlack;
let server: FakeSlackServer;
let client: WebClient;

beforeEach(async () => {
  slack = new FakeSlack({
    botToken: BOT_TOKEN,
    channels: [{ id: 'C_PRODUCT', name: 'product' }],
    users: [{ id: 'U_REQ', name: 'rex' }],
  });
  server = await listenFakeSlack(slack);
  client = new WebClient(BOT_TOKEN, { slackApiUrl: server.slackApiUrl, retryConfig: { retries: 0 } });
});

afterEach(async () => {
  await slack.settled();
  await server.close();
});

describe('files.uploadV2 through the real @slack/web-api WebClient', () => {
  it('records the file and shows it as a bot message with a files entry in the thread', async () => {
    const root = slack.postAsUser({ channel: 'C_PRODUCT', user: 'U_REQ', text: 'an idea' });

    const result = await client.files.uploadV2({
      channel_id: 'C_PRODUCT',
      thread_ts: root.ts,
      filename: 'prd.md',
      title: 'PRD: AI project manager',
      content: '# PRD\n\nCafé ✓ — unicode survives.',
      initial_comment: 'Here is the PRD',
    });

    expect(result.ok).toBe(true);
    const [file] = slack.files();
    expect(file).toEqual({
      id: expect.stringMatching(/^F\d+$/),
      title: 'PRD: AI project manager',
      filename: 'prd.md',
      content: '# PRD\n\nCafé ✓ — unicode survives.',
      channel: 'C_PRODUCT',
      thread_ts: root.ts,
    });
    const reply = slack.messages({ channel: 'C_PRODUCT', thread_ts: root.ts }).at(-1);
    expect(reply).toMatchObject({ bot: true, text: 'Here is the PRD', files: [file] });
    expect(slack.apiCalls().map((call) => call.method)).toEqual([
      'files.getUploadURLExternal',
      'files.upload.external',
      'files.completeUploadExternal',
    ]);
  });

  it('refuses to complete an upload whose bytes never arrived', async () => {
    const { file_id } = await client.files.getUploadURLExternal({ filename: 'a.md', length: 3 });

    await expect(
      client.files.completeUploadExternal({ files: [{ id: String(file_id) }], channel_id: 'C_PRODUCT' }),
    ).rejects.toMatchObject({ data: { ok: false, error: 'file_not_found' } });
    expect(slack.files()).toEqual([]);
  });
});
