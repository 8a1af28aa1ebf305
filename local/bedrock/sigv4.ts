import type { IncomingMessage } from 'node:http';

/**
 * What the emulator checks of a request's SigV4 signature: that it is there and well formed
 * for Bedrock (the `bedrock` service in the credential scope, `host` and `x-amz-date` among
 * the signed headers), not its value. The sandbox's credentials are dummies; checking the
 * shape still catches a client that does not sign, or signs for the wrong service.
 */

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

export interface SignatureShape {
  accessKeyId: string;
  region: string;
  service: string;
  signedHeaders: string[];
}

/** The signature's parts, or why the request is not signed the way Bedrock needs. */
export function checkSignatureShape(
  req: Pick<IncomingMessage, 'headers'>,
): { ok: true; signature: SignatureShape } | { ok: false; reason: string } {
  const authorization = req.headers.authorization;
  if (typeof authorization !== 'string' || authorization === '') {
    return { ok: false, reason: 'Missing Authentication Token' };
  }
  const match = AUTHORIZATION.exec(authorization);
  if (!match) return { ok: false, reason: 'Authorization header is not an AWS4-HMAC-SHA256 signature' };
  const [, accessKeyId = '', date = '', region = '', service = '', signedHeaders = ''] = match;
  if (service !== 'bedrock') {
    return {
      ok: false,
      reason: `Credential should be scoped to correct service: 'bedrock', not '${service}'`,
    };
  }
  const amzDate = req.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return { ok: false, reason: 'Missing or malformed X-Amz-Date header' };
  }
  if (!amzDate.startsWith(date)) {
    return { ok: false, reason: `Credential date ${date} does not match X-Amz-Date ${amzDate}` };
  }
  const signed = signedHeaders.split(';');
  for (const required of ['host', 'x-amz-date']) {
    if (!signed.includes(required)) return { ok: false, reason: `SignedHeaders lacks ${required}` };
  }
  return { ok: true, signature: { accessKeyId, region, service, signedHeaders: signed } };
}
