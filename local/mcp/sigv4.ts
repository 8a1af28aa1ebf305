import { createHash, createHmac, type Hash, type Hmac, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * SigV4 for the sandbox's Function URL with IAM auth: signing a request (what an engineer's
 * signing proxy does) and checking one as Lambda does, by signing it again with the caller's
 * secret key and comparing. Offline, the secret keys are the sandbox's own known ones.
 */

/** The service a Function URL's signatures are scoped to. */
export const FUNCTION_URL_SERVICE = 'lambda';
/** How far a request's `X-Amz-Date` may be from now, as AWS allows. */
const MAX_SKEW_MS = 15 * 60_000;

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 (an HMAC with a secret) over node:crypto, in the shape the signer takes. */
export class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }
}

export interface SigningRequest {
  method: string;
  url: URL;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** The request's headers with its SigV4 `authorization` and `x-amz-date` added. */
export async function signRequest(
  request: SigningRequest,
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
  signingDate: Date = new Date(),
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region, service: FUNCTION_URL_SERVICE, sha256: NodeSha256 });
  const { url } = request;
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...request.headers, host: url.host },
      ...(request.body !== '' ? { body: request.body } : {}),
    },
    { signingDate },
  );
  return signed.headers as Record<string, string>;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

export type Verified = { ok: true; accessKeyId: string } | { ok: false; reason: string };

/**
 * Whether `request` carries a valid SigV4 signature for a Function URL by a known access key:
 * the signature is made again over the headers it says it signed, with that key's secret, and
 * must be the same.
 */
export async function verifySignature(
  request: SigningRequest,
  secretOf: (accessKeyId: string) => string | undefined,
  now: Date = new Date(),
): Promise<Verified> {
  const authorization = request.headers.authorization;
  if (!authorization) return { ok: false, reason: 'Missing Authentication Token' };
  const match = AUTHORIZATION.exec(authorization);
  if (match === null)
    return { ok: false, reason: 'the Authorization header is not an AWS4-HMAC-SHA256 signature' };
  const [, accessKeyId = '', , region = '', service = '', signedHeaders = ''] = match;
  if (service !== FUNCTION_URL_SERVICE)
    return { ok: false, reason: `the credential is scoped to '${service}', not '${FUNCTION_URL_SERVICE}'` };
  const amzDate = request.headers['x-amz-date'] ?? '';
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (date === null) return { ok: false, reason: 'missing or malformed X-Amz-Date' };
  const signingDate = new Date(`${date[1]}-${date[2]}-${date[3]}T${date[4]}:${date[5]}:${date[6]}Z`);
  if (Math.abs(now.getTime() - signingDate.getTime()) > MAX_SKEW_MS)
    return { ok: false, reason: 'Signature expired' };
  const secretAccessKey = secretOf(accessKeyId);
  if (secretAccessKey === undefined)
    return { ok: false, reason: 'The security token included in the request is invalid' };
  // The signer takes a declared payload hash as given, so a body changed after signing would
  // pass unless the declared hash is held to the body that came.
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== createHash('sha256').update(request.body).digest('hex'))
    return { ok: false, reason: 'the x-amz-content-sha256 header does not match the body' };
  const signed = new Set(signedHeaders.split(';'));
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => signed.has(name)));
  const again = await signRequest(
    { ...request, headers },
    { accessKeyId, secretAccessKey },
    region,
    signingDate,
  );
  const expected = Buffer.from(again.authorization ?? '');
  const given = Buffer.from(authorization);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return {
      ok: false,
      reason: 'The request signature we calculated does not match the signature you provided',
    };
  return { ok: true, accessKeyId };
}
