import { verify } from '@octokit/webhooks-methods';
import {
  InvalidWebhookSignatureError,
  MissingWebhookSecretError,
  WebhookSignatureFailure,
} from './errors.ts';

export interface VerifyGithubRequestOptions {
  secret: string;
  /** `X-Hub-Signature-256`: `sha256=` and the hex HMAC-SHA256 of the body under the secret. */
  signature: string | undefined;
  /** The body as GitHub sent it, decoded as UTF-8 (GitHub signs the UTF-8 bytes of its JSON). */
  body: string;
}

const SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/**
 * Throws `InvalidWebhookSignatureError` unless the body carries GitHub's `X-Hub-Signature-256`.
 * The comparison is `@octokit/webhooks-methods`' `verify` (constant time). GitHub signs no
 * timestamp: a replay is caught by the delivery id (SQS deduplication) and by the event's own
 * time, which the caller checks after parsing (`isStale`).
 */
export async function verifyGithubRequest(options: VerifyGithubRequestOptions): Promise<void> {
  if (!options.secret) throw new MissingWebhookSecretError('github');
  const { signature } = options;
  if (!signature) throw new InvalidWebhookSignatureError('github', WebhookSignatureFailure.missingSignature);
  if (!SIGNATURE.test(signature)) {
    throw new InvalidWebhookSignatureError('github', WebhookSignatureFailure.malformedSignature);
  }
  // `verify` refuses an empty payload with a TypeError; no GitHub event has one.
  if (options.body === '')
    throw new InvalidWebhookSignatureError('github', WebhookSignatureFailure.emptyBody);
  if (!(await verify(options.secret, options.body, signature))) {
    throw new InvalidWebhookSignatureError('github', WebhookSignatureFailure.signatureMismatch);
  }
}
