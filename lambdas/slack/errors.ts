/** Slack answered `ok: false` (e.g. channel_not_found, not_in_channel): terminal for this post. */
export class SlackApiError extends Error {
  override readonly name = 'SlackApiError';
  constructor(
    readonly method: string,
    readonly slackError: string,
    options?: { cause: unknown },
  ) {
    super(`Slack ${method} failed: ${slackError}`, options);
  }
}

/** Slack could not be reached or kept rate-limiting past the client's retries: retry the task. */
export class SlackUnavailableError extends Error {
  override readonly name = 'SlackUnavailableError';
  constructor(
    readonly method: string,
    options: { cause: unknown },
  ) {
    super(`Slack ${method} is unavailable`, options);
  }
}

/** A post names a template its SlackPost function does not have: a wiring error, not retried. */
export class UnknownTemplateError extends Error {
  override readonly name = 'UnknownTemplateError';
  constructor(
    readonly template: string,
    readonly known: readonly string[],
  ) {
    super(`no Slack template "${template}" here (known: ${known.join(', ') || 'none'})`);
  }
}

/** `SLACK_RETRY_TIME_SCALE` is not a positive number: the clients are not built on a guess. */
export class InvalidSlackRetryTimeScaleError extends Error {
  override readonly name = 'InvalidSlackRetryTimeScaleError';
  constructor(
    readonly variable: string,
    readonly value: string,
  ) {
    super(
      `${variable} must be a positive number (it multiplies the waits between Slack retries), got ${JSON.stringify(value)}`,
    );
  }
}
