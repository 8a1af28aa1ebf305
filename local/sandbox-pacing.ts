import { ENV } from '../lambdas/shared/env.ts';

/**
 * The handlers' environment that puts the Slack clients' retries on the sandbox's time: the
 * waits between two attempts of one Slack call (back-off, `Retry-After`) shrink by the same
 * time scale as every Wait, timeout and fault duration, so a fake Slack outage meets the
 * clients' retries and the state machine's in the proportions it would in AWS
 * (lambdas/slack/retry-pacing.ts). Pass it in `SandboxOptions.env`.
 */
export function slackRetryPacing(timeScale: number): Record<string, string> {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`a time scale is a positive number, got ${timeScale}`);
  return { [ENV.slackRetryTimeScale]: String(timeScale) };
}
