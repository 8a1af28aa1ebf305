import { ErrorCode } from '@slack/web-api';
import { SlackApiError, SlackUnavailableError } from './errors.ts';

/**
 * What a failed Web API call means, in our terms: Slack's own refusal (`ok: false`, its error
 * code kept: terminal) or Slack unavailable (unreachable, no answer, 5xx, rate-limited past the
 * client's retries). Every adapter that calls Slack translates its failures here.
 */
export function slackFailure(method: string, error: unknown): SlackApiError | SlackUnavailableError {
  if ((error as { code?: string }).code === ErrorCode.PlatformError) {
    const slackError = (error as { data?: { error?: string } }).data?.error ?? 'unknown_error';
    return new SlackApiError(method, slackError, { cause: error });
  }
  return new SlackUnavailableError(method, { cause: error });
}

/** Runs one Web API call (the client's own retries apply), its failure translated. */
export async function slackCall<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw slackFailure(method, error);
  }
}
