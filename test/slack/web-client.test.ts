import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackApiError, SlackUnavailableError } from '../../lambdas/slack/errors.ts';
import { createSlackPoster } from '../../lambdas/slack/web-client.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

const TOKEN = 'xoxb-test-token';
let slack: FakeSlack;
let server: FakeSlackServer;

beforeAll(async () => {
  slack = new FakeSlack({ botToken: TOKEN, channels: [{ id: 'C_BUGS', name: 'bug-reports' }] });
  server = await listenFakeSlack(slack);
});
afterAll(async () => server.close());

describe('Slack poster (@slack/web-api)', () => {
  it('posts into a thread and returns the ts Slack gave the message', async () => {
    const poster = createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl });
    const root = slack.postAsUser({ channel: 'C_BUGS', user: 'U_REPORTER', text: 'export fails' });

    const posted = await poster.postMessage({
      channel: 'C_BUGS',
      text: 'Looking into it',
      threadTs: root.ts,
    });

    expect(slack.messages({ channel: 'C_BUGS', thread_ts: root.ts }).at(-1)).toMatchObject({
      ts: posted.ts,
      bot: true,
      text: 'Looking into it',
    });
  });

  it("waits out Slack's rate limit and retries", async () => {
    const poster = createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl });
    slack.rateLimit('chat.postMessage', 1, 1);

    const posted = await poster.postMessage({ channel: 'C_BUGS', text: 'after the limit' });

    expect(posted.ts).toMatch(/^\d+\.\d{6}$/);
    expect(
      slack
        .apiCalls('chat.postMessage')
        .slice(-2)
        .map((c) => c.outcome),
    ).toEqual(['rate_limited', 'ok']);
  });

  it("names Slack's error for a post Slack refuses", async () => {
    const poster = createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl });

    const refused = poster.postMessage({ channel: 'C_NOWHERE', text: 'hello' });

    await expect(refused).rejects.toBeInstanceOf(SlackApiError);
    await expect(refused).rejects.toMatchObject({ slackError: 'channel_not_found' });
  });

  it('reports Slack as unavailable (a retryable error) when it cannot be reached', async () => {
    const poster = createSlackPoster({ token: TOKEN, slackApiUrl: 'http://127.0.0.1:9/api/', maxRetries: 0 });

    await expect(poster.postMessage({ channel: 'C_BUGS', text: 'hello' })).rejects.toBeInstanceOf(
      SlackUnavailableError,
    );
  });

  it('uploads a Markdown file to a thread with files.uploadV2', async () => {
    const poster = createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl });
    const root = slack.postAsUser({ channel: 'C_BUGS', user: 'U_REPORTER', text: 'an idea' });

    const { fileId } = await poster.uploadFile({
      channel: 'C_BUGS',
      threadTs: root.ts,
      filename: 'prd.md',
      title: 'PRD',
      content: '# PRD\n',
    });

    expect(slack.files().at(-1)).toEqual({
      id: fileId,
      title: 'PRD',
      filename: 'prd.md',
      content: '# PRD\n',
      channel: 'C_BUGS',
      thread_ts: root.ts,
    });
  });

  it("names Slack's error for an upload Slack refuses", async () => {
    const poster = createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl });

    const refused = poster.uploadFile({ channel: 'C_NOWHERE', filename: 'a.md', title: 'A', content: 'a' });

    await expect(refused).rejects.toMatchObject({ slackError: 'channel_not_found' });
  });
});
