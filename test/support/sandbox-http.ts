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

/** The polling helper (test/support/eventually.ts), here too for the files that import it from here. */
export { eventually } from './eventually.ts';
