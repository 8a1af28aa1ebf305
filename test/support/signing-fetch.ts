import { signRequest } from '../../local/mcp/sigv4.ts';

/**
 * A `fetch` that signs every request with `credentials` for a Function URL, as an engineer's
 * signing proxy does (string bodies only: what an MCP client sends).
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
    const signed = await signRequest(
      { method: init.method ?? 'GET', url: target, headers, body },
      credentials,
      region,
    );
    return fetch(target, { ...init, headers: signed });
  };
}
