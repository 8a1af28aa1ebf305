import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  InvalidWebhookSignatureError,
  MissingWebhookSecretError,
  WebhookSignatureFailure,
} from './errors.ts';

export interface VerifyPagerdutyRequestOptions {
  secret: string;
  /** `X-PagerDuty-Signature`: one or more `v1=<hex>`, comma-separated (one per active secret). */
  signature: string | undefined;
  /** The raw body: bytes, or the string those bytes decode to. */
  body: Uint8Array | string;
}

/** Each entry of the header: the version and 64 hex digits of HMAC-SHA256. */
const ENTRY = /^v1=([0-9a-f]{64})$/;

/**
 * Throws `InvalidWebhookSignatureError` unless one of the header's `v1` signatures is the
 * HMAC-SHA256 of these exact bytes under the secret. PagerDuty sends one signature per secret
 * of the subscription while a secret is rotated, so any match will do; each comparison is
 * constant-time. Entries of other versions are skipped, as PagerDuty's documentation asks.
 * PagerDuty signs no timestamp: the caller checks the event's `occurred_at` after parsing.
 */
export function verifyPagerdutyRequest(options: VerifyPagerdutyRequestOptions): void {
  if (!options.secret) throw new MissingWebhookSecretError('pagerduty');
  const header = options.signature;
  if (!header) throw new InvalidWebhookSignatureError('pagerduty', WebhookSignatureFailure.missingSignature);
  const given = header
    .split(',')
    .map((entry) => ENTRY.exec(entry.trim())?.[1])
    .filter((hex): hex is string => hex !== undefined);
  if (given.length === 0) {
    throw new InvalidWebhookSignatureError('pagerduty', WebhookSignatureFailure.malformedSignature);
  }
  const expected = createHmac('sha256', options.secret).update(options.body).digest();
  // Every entry is compared, matched or not, so the time taken says nothing about which matched.
  let matched = false;
  for (const hex of given) {
    if (timingSafeEqual(Buffer.from(hex, 'hex'), expected)) matched = true;
  }
  if (!matched)
    throw new InvalidWebhookSignatureError('pagerduty', WebhookSignatureFailure.signatureMismatch);
}
