import type { RetryOptions } from '@slack/web-api';
import { ENV } from '../shared/env.ts';
import { InvalidSlackRetryTimeScaleError } from './errors.ts';

/**
 * How fast the Slack clients retry a failed call. Slack's pacing (half a second doubling, the
 * `Retry-After` Slack asks for) holds in AWS; the offline sandbox shrinks every wait by its
 * time scale, and sets `SLACK_RETRY_TIME_SCALE` to the same factor so a Slack outage it fakes
 * is retried on that time too. Only the waits change: how many retries, which failures are
 * retried and the longest `Retry-After` waited out in process are decided as in AWS.
 */

/** The factor from the environment: 1 when unset; anything but a positive number is refused. */
export function slackRetryTimeScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[ENV.slackRetryTimeScale];
  if (raw === undefined || raw.trim() === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new InvalidSlackRetryTimeScaleError(ENV.slackRetryTimeScale, raw);
  return scale;
}

/** The first wait of a WebClient's own retries when its settings name none (the `retry` package's). */
const DEFAULT_MIN_TIMEOUT_MS = 1_000;

/** The retry settings of a WebClient that retries by itself (p-retry's), with its waits scaled. */
export function pacedRetryConfig(
  config: RetryOptions,
  timeScale: number = slackRetryTimeScale(),
): RetryOptions {
  return {
    ...config,
    minTimeout: (config.minTimeout ?? DEFAULT_MIN_TIMEOUT_MS) * timeScale,
    ...(config.maxTimeout === undefined ? {} : { maxTimeout: config.maxTimeout * timeScale }),
  };
}
