import { CAPPED_HEADER } from './model-errors.ts';

/**
 * The model SDKs wait out whatever `retry-after` the API asks before their own retry (an hour,
 * for a 429 with `retry-after: 3600`). This `fetch` turns an asked wait over `capSeconds` into
 * "do not retry" for the SDK (`x-should-retry: false`), keeping the asked seconds in a header
 * that `translateModelError` reads, so the call fails at once as unavailable and the state
 * machine decides when to try again.
 */
export function cappedRetryAfterFetch(capSeconds: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const asked = askedWaitSeconds(response.headers);
    if (asked === undefined || asked <= capSeconds) return response;
    const headers = new Headers(response.headers);
    headers.set('x-should-retry', 'false');
    headers.set(CAPPED_HEADER, String(Math.ceil(asked)));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

function askedWaitSeconds(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return ms / 1000;
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? (date - Date.now()) / 1000 : undefined;
}
