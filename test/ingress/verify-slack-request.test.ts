import { describe, expect, it } from 'vitest';
import { InvalidSlackSignatureError, MissingSigningSecretError } from '../../lambdas/ingress/errors.ts';
import { computeSlackSignature, verifySlackRequest } from '../../lambdas/ingress/verify-slack-request.ts';
import { NOW_MS, NOW_SECONDS, SIGNING_SECRET } from './slack-requests.ts';

const body = 'token=t&command=%2Fprd&text=hello';

function headersFor(timestamp: number, secret = SIGNING_SECRET, signedBody: string = body) {
  return {
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': computeSlackSignature(secret, String(timestamp), signedBody),
  };
}

function rejection(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidSlackSignatureError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('verifySlackRequest', () => {
  it("matches Slack's documented example signature", () => {
    // From https://api.slack.com/authentication/verifying-requests-from-slack
    const exampleBody =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';

    const signature = computeSlackSignature('8f742231b10e8888abcd99yyyzzz85a5', '1531420618', exampleBody);

    expect(signature).toBe('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503');
  });

  it('returns the verified timestamp of a valid request', () => {
    expect(
      verifySlackRequest({
        signingSecret: SIGNING_SECRET,
        headers: headersFor(NOW_SECONDS),
        body,
        nowMilliseconds: NOW_MS,
      }),
    ).toBe(NOW_SECONDS);
  });

  it('verifies bytes and the string they decode to alike', () => {
    const text = 'text=caf\u00e9';
    const headers = headersFor(NOW_SECONDS, SIGNING_SECRET, text);

    expect(
      verifySlackRequest({
        signingSecret: SIGNING_SECRET,
        headers,
        body: Buffer.from(text),
        nowMilliseconds: NOW_MS,
      }),
    ).toBe(NOW_SECONDS);
  });

  it.each([
    ['missing_signature', { 'x-slack-request-timestamp': String(NOW_SECONDS) }],
    ['missing_timestamp', { 'x-slack-signature': 'v0=00' }],
    ['malformed_timestamp', { ...headersFor(NOW_SECONDS), 'x-slack-request-timestamp': '-1' }],
    ['stale_timestamp', headersFor(NOW_SECONDS - 301)],
    ['stale_timestamp', headersFor(NOW_SECONDS + 301)],
    ['unknown_signature_version', { ...headersFor(NOW_SECONDS), 'x-slack-signature': 'v1=abc' }],
    ['signature_mismatch', headersFor(NOW_SECONDS, 'another-secret')],
    ['signature_mismatch', { ...headersFor(NOW_SECONDS), 'x-slack-signature': 'v0=short' }],
  ])('rejects with reason %s', (reason, headers) => {
    expect(
      rejection(() =>
        verifySlackRequest({ signingSecret: SIGNING_SECRET, headers, body, nowMilliseconds: NOW_MS }),
      ),
    ).toBe(reason);
  });

  it('refuses to verify with an empty secret rather than accept anything', () => {
    expect(() =>
      verifySlackRequest({
        signingSecret: '',
        headers: headersFor(NOW_SECONDS, ''),
        body,
        nowMilliseconds: NOW_MS,
      }),
    ).toThrow(MissingSigningSecretError);
  });

  it('names its error so that callers can tell it apart', () => {
    expect(new InvalidSlackSignatureError('stale_timestamp').name).toBe('InvalidSlackSignatureError');
  });
});
