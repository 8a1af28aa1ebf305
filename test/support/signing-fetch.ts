import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Signing requests for a Function URL with IAM auth as an engineer's signing proxy does: with
 * the SigV4 signer of the AWS SDK, apart from the sandbox's own code, so that the sandbox's
 * check (local/mcp/sigv4.ts) is held to signatures it did not make itself.
 */

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 (an HMAC with a secret) in the shape the signer takes. */
class Sha256 {
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

/** A request to sign: header names in lower case. */
export interface RequestToSign {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/** The request's headers with its SigV4 `authorization`, `x-amz-date` and payload hash added. */
export async function signedHeaders(
  request: RequestToSign,
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
  signingDate: Date = new Date(),
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region, service: 'lambda', sha256: Sha256 });
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

/**
 * A `fetch` that signs every request with `credentials` for a Function URL (string bodies only:
 * what an MCP client sends).
 */
export function signingFetch(
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init.body === 'string' ? init.body : '';
    const signed = await signedHeaders(
      { method: init.method ?? 'GET', url: target, headers, body },
      credentials,
      region,
    );
    return fetch(target, { ...init, headers: signed });
  };
}
