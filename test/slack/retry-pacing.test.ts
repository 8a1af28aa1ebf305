import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidSlackRetryTimeScaleError, SlackUnavailableError } from '../../lambdas/slack/errors.ts';
import { createProgressClient } from '../../lambdas/slack/progress-client.ts';
import { pacedRetryConfig, slackRetryTimeScale } from '../../lambdas/slack/retry-pacing.ts';
import { createSlackPoster } from '../../lambdas/slack/web-client.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/**
 * SLACK_RETRY_TIME_SCALE: the waits between the Slack clients' retries of one call, shrunk
 * the way the sandbox shrinks every other wait; how many retries and which failures are
 * retried stay as they are.
 */

const TOKEN = 'xoxb-test-token';
let slack: FakeSlack;
let server: FakeSlackServer;

beforeAll(async () => {
  slack = new FakeSlack({ botToken: TOKEN, channels: [{ id: 'C_BUGS', name: 'bug-reports' }] });
  server = await listenFakeSlack(slack);
});
afterAll(async () => server.close());
afterEach(() => {
  vi.unstubAllEnvs();
  slack.faults.clear();
});

/** A poster built from the environment as the handlers build it, its waits recorded instead of slept. */
function recordingPoster() {
  const waits: number[] = [];
  const poster = createSlackPoster({
    token: TOKEN,
    slackApiUrl: server.slackApiUrl,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { poster, waits };
}

describe('the factor from the environment', () => {
  it("is 1 (Slack's own pacing) when the variable is unset or empty", () => {
    expect(slackRetryTimeScale({})).toBe(1);
    expect(slackRetryTimeScale({ SLACK_RETRY_TIME_SCALE: '' })).toBe(1);
  });

  it('is the number the variable holds', () => {
    expect(slackRetryTimeScale({ SLACK_RETRY_TIME_SCALE: '0.001' })).toBe(0.001);
    expect(slackRetryTimeScale({ SLACK_RETRY_TIME_SCALE: '2' })).toBe(2);
  });

  it.each(['fast', '0', '-0.5', 'Infinity', '1e999', '0.001s'])(
    'refuses %j, naming the variable and the value',
    (value) => {
      const read = () => slackRetryTimeScale({ SLACK_RETRY_TIME_SCALE: value });
      expect(read).toThrow(InvalidSlackRetryTimeScaleError);
      expect(read).toThrow(
        `SLACK_RETRY_TIME_SCALE must be a positive number (it multiplies the waits between Slack retries), got ${JSON.stringify(value)}`,
      );
    },
  );
});

describe('a poster built under SLACK_RETRY_TIME_SCALE', () => {
  it("waits Slack's own back-off between retries when the variable is unset", async () => {
    slack.faults.add({ kind: 'server_error', method: 'chat.postMessage', count: 2 });
    const { poster, waits } = recordingPoster();

    await poster.postMessage({ channel: 'C_BUGS', text: 'after two 500s' });

    expect(waits).toEqual([500, 1_000]);
  });

  it('waits the back-off times the factor, and retries as many times', async () => {
    vi.stubEnv('SLACK_RETRY_TIME_SCALE', '0.001');
    slack.faults.add({ kind: 'server_error', method: 'chat.postMessage', count: 2 });
    const { poster, waits } = recordingPoster();
    const before = slack.apiCalls('chat.postMessage').length;

    const posted = await poster.postMessage({ channel: 'C_BUGS', text: 'after two 500s' });

    expect(posted.ts).toMatch(/^\d+\.\d{6}$/);
    expect(waits).toEqual([0.5, 1]);
    expect(
      slack
        .apiCalls('chat.postMessage')
        .slice(before)
        .map((call) => call.outcome),
    ).toEqual([{ error: 'http_500' }, { error: 'http_500' }, 'ok']);
  });

  it("waits the Retry-After times the factor, and still refuses one past the cap in Slack's seconds", async () => {
    vi.stubEnv('SLACK_RETRY_TIME_SCALE', '0.001');
    slack.rateLimit('chat.postMessage', 1, 10);
    const { poster, waits } = recordingPoster();

    await poster.postMessage({ channel: 'C_BUGS', text: 'after the limit' });
    expect(waits).toEqual([10]);

    slack.rateLimit('chat.postMessage', 1, 11);
    await expect(poster.postMessage({ channel: 'C_BUGS', text: 'past the cap' })).rejects.toBeInstanceOf(
      SlackUnavailableError,
    );
    expect(waits).toEqual([10]);
  });

  it('is refused at build on a factor that is not a positive number', () => {
    vi.stubEnv('SLACK_RETRY_TIME_SCALE', 'fast');

    expect(() => createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl })).toThrow(
      InvalidSlackRetryTimeScaleError,
    );
    expect(() => createProgressClient({ token: TOKEN, slackApiUrl: server.slackApiUrl })).toThrow(
      InvalidSlackRetryTimeScaleError,
    );
    expect(() => pacedRetryConfig({ retries: 2, minTimeout: 500 })).toThrow(InvalidSlackRetryTimeScaleError);
  });
});

describe("a WebClient's own retry settings", () => {
  it('keep their number and factor, their waits times the factor', () => {
    vi.stubEnv('SLACK_RETRY_TIME_SCALE', '0.01');

    expect(pacedRetryConfig({ retries: 3, factor: 2, minTimeout: 500, maxTimeout: 5_000 })).toEqual({
      retries: 3,
      factor: 2,
      minTimeout: 5,
      maxTimeout: 50,
    });
    // No first wait named: the retry package's 1 s, scaled.
    expect(pacedRetryConfig({ retries: 1 })).toEqual({ retries: 1, minTimeout: 10 });
  });

  it('are unchanged in their waits when the variable is unset', () => {
    expect(pacedRetryConfig({ retries: 2, factor: 2, minTimeout: 300, maxTimeout: 2_000 })).toEqual({
      retries: 2,
      factor: 2,
      minTimeout: 300,
      maxTimeout: 2_000,
    });
  });
});
