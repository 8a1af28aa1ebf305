import { describe, expect, it } from 'vitest';
import { signRequest, verifySignature } from '../../local/mcp/sigv4.ts';

/** A request as the Function URL's check reads it. */
type SigningRequest = Parameters<typeof verifySignature>[0];

/**
 * The sandbox's check of a Function URL's SigV4 signature (local/mcp/sigv4.ts): it signs the
 * request again with the secret of the key it names and compares, as Lambda does.
 */

const KEYS: Record<string, string> = { reader: 'reader-secret' };
const secretOf = (key: string) => KEYS[key];
const NOW = new Date('2024-11-21T09:00:00Z');
const REQUEST: SigningRequest = {
  method: 'POST',
  url: new URL('http://127.0.0.1:3000/sandbox/mcp/history'),
  headers: { 'content-type': 'application/json' },
  body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
};

async function signed(options: { secret?: string; date?: Date } = {}): Promise<SigningRequest> {
  const headers = await signRequest(
    REQUEST,
    { accessKeyId: 'reader', secretAccessKey: options.secret ?? 'reader-secret' },
    'eu-west-1',
    options.date ?? NOW,
  );
  return { ...REQUEST, headers };
}

describe("the sandbox's SigV4 check of a Function URL request", () => {
  it('accepts a request signed by a known key and names the key', async () => {
    expect(await verifySignature(await signed(), secretOf, NOW)).toEqual({ ok: true, accessKeyId: 'reader' });
  });

  it.each([
    [
      'a body changed after signing',
      async () => ({ ...(await signed()), body: '{"jsonrpc":"2.0","id":2}' }),
      /does not match/,
    ],
    [
      'a body changed after signing, its declared hash left out',
      async () => {
        const { 'x-amz-content-sha256': _declared, ...headers } = (await signed()).headers;
        return { ...REQUEST, headers, body: '{"jsonrpc":"2.0","id":2}' };
      },
      /signature we calculated does not match/,
    ],
    ['a wrong secret', () => signed({ secret: 'guessed' }), /does not match/],
    [
      'a signature twenty minutes old',
      () => signed({ date: new Date(NOW.getTime() - 20 * 60_000) }),
      /expired/,
    ],
    [
      'another service in the credential scope',
      async () => {
        const request = await signed();
        const authorization = String(request.headers.authorization).replace('/lambda/', '/bedrock/');
        return { ...request, headers: { ...request.headers, authorization } };
      },
      /scoped to 'bedrock'/,
    ],
    [
      'a key the sandbox does not know',
      async () => {
        const request = await signed();
        const authorization = String(request.headers.authorization).replace(
          'Credential=reader/',
          'Credential=other/',
        );
        return { ...request, headers: { ...request.headers, authorization } };
      },
      /security token included in the request is invalid/,
    ],
    ['no signature', async () => REQUEST, /Missing Authentication Token/],
  ])('refuses %s', async (_, request, reason) => {
    const verified = await verifySignature(await request(), secretOf, NOW);
    expect(verified).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });
});
