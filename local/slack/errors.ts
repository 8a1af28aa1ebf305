/** Raised by the fake workspace for a request Slack would refuse; `code` is Slack's `error` string. */
export class SlackApiError extends Error {
  override readonly name = 'SlackApiError';
  constructor(
    readonly code: string,
    detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}
