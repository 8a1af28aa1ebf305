/**
 * Why a request was refused at the door. The ingress answers every one of these with a
 * 4xx and enqueues nothing; none is retryable, because the same bytes fail the same way.
 */

export const SignatureFailure = {
  missingSignature: 'missing_signature',
  missingTimestamp: 'missing_timestamp',
  malformedTimestamp: 'malformed_timestamp',
  staleTimestamp: 'stale_timestamp',
  unknownVersion: 'unknown_signature_version',
  signatureMismatch: 'signature_mismatch',
} as const;
export type SignatureFailure = (typeof SignatureFailure)[keyof typeof SignatureFailure];

/** The request does not carry a valid Slack v0 signature within the five-minute window. */
export class InvalidSlackSignatureError extends Error {
  override readonly name = 'InvalidSlackSignatureError';
  constructor(
    readonly reason: SignatureFailure,
    detail?: string,
  ) {
    super(`Slack request signature rejected: ${reason}${detail ? ` (${detail})` : ''}`);
  }
}

/** The signing secret itself is unusable (empty): a configuration fault, not bad input. */
export class MissingSigningSecretError extends Error {
  override readonly name = 'MissingSigningSecretError';
  constructor() {
    super('the Slack signing secret is empty');
  }
}

/** Why a webhook's signature (GitHub, PagerDuty) was refused: the ingress answers 401. */
export const WebhookSignatureFailure = {
  missingSignature: 'missing_signature',
  malformedSignature: 'malformed_signature',
  signatureMismatch: 'signature_mismatch',
  emptyBody: 'empty_body',
  /** The event's own signed time is outside the accepted window: a replay, or a very late retry. */
  staleEvent: 'stale_event',
} as const;
export type WebhookSignatureFailure = (typeof WebhookSignatureFailure)[keyof typeof WebhookSignatureFailure];

/** A GitHub or PagerDuty webhook without a valid signature over its body. */
export class InvalidWebhookSignatureError extends Error {
  override readonly name = 'InvalidWebhookSignatureError';
  constructor(
    readonly source: 'github' | 'pagerduty',
    readonly reason: WebhookSignatureFailure,
    detail?: string,
  ) {
    super(`${source} webhook signature rejected: ${reason}${detail ? ` (${detail})` : ''}`);
  }
}

/** A webhook secret is empty: a configuration fault, not bad input. */
export class MissingWebhookSecretError extends Error {
  override readonly name = 'MissingWebhookSecretError';
  constructor(readonly source: 'github' | 'pagerduty') {
    super(`the ${source} webhook secret is empty`);
  }
}
