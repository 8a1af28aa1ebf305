import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidSlackSignatureError, MissingSigningSecretError, SignatureFailure } from './errors.ts';

/** Slack refuses to replay, and so do we: a request older or newer than this is stale. */
export const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

const SIGNATURE_VERSION = 'v0';

export interface SlackSignatureHeaders {
  'x-slack-signature'?: string | undefined;
  'x-slack-request-timestamp'?: string | undefined;
}

export interface VerifySlackRequestOptions {
  signingSecret: string;
  headers: SlackSignatureHeaders;
  /** The body exactly as Slack sent it: bytes, or the string those bytes decode to. */
  body: Uint8Array | string;
  /** Injected clock, as in bolt-js's `verifySlackRequest`. @default Date.now() */
  nowMilliseconds?: number;
}

/**
 * `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` under the signing secret. Exported for
 * the tests, the benchmark and the sandbox, which sign requests the way Slack does.
 */
export function computeSlackSignature(
  signingSecret: string,
  timestamp: string,
  body: Uint8Array | string,
): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`${SIGNATURE_VERSION}:${timestamp}:`);
  hmac.update(body);
  return `${SIGNATURE_VERSION}=${hmac.digest('hex')}`;
}

/**
 * Throws `InvalidSlackSignatureError` unless the request carries Slack's v0 signature over
 * these exact bytes and a timestamp within five minutes of now, in either direction.
 * Returns the verified request timestamp (seconds).
 */
export function verifySlackRequest(options: VerifySlackRequestOptions): number {
  if (!options.signingSecret) throw new MissingSigningSecretError();
  const signature = options.headers['x-slack-signature'];
  const timestamp = options.headers['x-slack-request-timestamp'];
  if (!signature) throw new InvalidSlackSignatureError(SignatureFailure.missingSignature);
  if (!timestamp) throw new InvalidSlackSignatureError(SignatureFailure.missingTimestamp);
  if (!/^\d{1,12}$/.test(timestamp))
    throw new InvalidSlackSignatureError(SignatureFailure.malformedTimestamp);

  // The window is checked before the HMAC so a replayed request costs no hashing; a future
  // timestamp is as suspect as an old one (a captured request cannot be post-dated by us).
  const timestampSeconds = Number(timestamp);
  const nowSeconds = Math.floor((options.nowMilliseconds ?? Date.now()) / 1000);
  const skew = nowSeconds - timestampSeconds;
  if (Math.abs(skew) > MAX_CLOCK_SKEW_SECONDS) {
    throw new InvalidSlackSignatureError(SignatureFailure.staleTimestamp, `${skew} s from now`);
  }

  if (!signature.startsWith(`${SIGNATURE_VERSION}=`)) {
    throw new InvalidSlackSignatureError(SignatureFailure.unknownVersion);
  }
  const expected = Buffer.from(
    computeSlackSignature(options.signingSecret, timestamp, options.body),
    'latin1',
  );
  const given = Buffer.from(signature, 'utf8');
  // timingSafeEqual needs equal lengths; the length of a v0 signature is public anyway.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new InvalidSlackSignatureError(SignatureFailure.signatureMismatch);
  }
  return timestampSeconds;
}
