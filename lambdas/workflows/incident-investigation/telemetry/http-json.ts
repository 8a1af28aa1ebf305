import type * as z from 'zod';
import { statusKind, TelemetrySourceError } from './errors.ts';

/**
 * One JSON request to a third-party API (Datadog, PagerDuty) with `fetch`, a timeout, and the
 * answer validated by a schema. Failures become `TelemetrySourceError` classified by status.
 */
export async function requestJson<S extends z.ZodType>(
  source: string,
  url: string,
  init: RequestInit & { timeoutMs?: number },
  schema: S,
  fetchImpl: typeof fetch = fetch,
): Promise<z.infer<S>> {
  let response: Response;
  try {
    response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 15_000) });
  } catch (cause) {
    throw new TelemetrySourceError(
      source,
      `request failed: ${(cause as Error).message}`,
      { retryable: true, invalidQuery: false },
      { cause },
    );
  }
  const text = await response.text();
  if (!response.ok) {
    // The body of an API error says what was wrong (e.g. Datadog's `errors: [...]`); kept short.
    throw new TelemetrySourceError(
      source,
      `HTTP ${response.status}: ${text.slice(0, 300)}`,
      statusKind(response.status),
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new TelemetrySourceError(
      source,
      'the answer is not JSON',
      { retryable: false, invalidQuery: false },
      { cause },
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new TelemetrySourceError(
      source,
      'the answer does not have the expected shape',
      { retryable: false, invalidQuery: false },
      {
        cause: parsed.error,
      },
    );
  return parsed.data;
}
