/**
 * Small helpers for sandbox scenario tests: the sandbox's HTTP API (GET, or POST with a JSON
 * body), and polling until something is true (the sandbox runs asynchronously).
 */

/** Calls the sandbox at `baseUrl`; a non-2xx answer throws with its status and body. */
export function sandboxApi(baseUrl: () => string) {
  return async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
}

/**
 * Polls `probe` until `accept` holds, for at most `timeoutMs`; a probe that throws counts as
 * "not yet" (e.g. an execution not started). Fails naming `what` and the last value seen.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | unknown;
  while (Date.now() < deadline) {
    last = await probe().catch((error: unknown) => error);
    if (!(last instanceof Error) && accept(last as T)) return last as T;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `timed out waiting for ${what}; last seen: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
  );
}
