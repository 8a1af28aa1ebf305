import { DescribedError } from '../../../shared/errors.ts';

/**
 * Errors of the telemetry tools. Each sets `name` (what a Step Functions Catch or the agent
 * runtime matches on) and passes its `cause`. What the model asked wrongly (a too-broad query,
 * a spent query budget, unknown service) is not an error: it is an `ok: false` result.
 */

/** `TELEMETRY_CONFIG` is missing or invalid: a deployment defect. */
export class InvalidTelemetryConfigurationError extends DescribedError {
  override readonly name = 'InvalidTelemetryConfigurationError';
}

/** A data source (CloudWatch, Datadog, PagerDuty) failed or answered something unreadable. */
export class TelemetrySourceError extends Error {
  override readonly name = 'TelemetrySourceError';
  constructor(
    readonly source: string,
    message: string,
    readonly kind: {
      /** Throttling and 5xx: worth a retry by the caller. */
      retryable: boolean;
      /** The source rejected the query itself (a 4xx other than auth and throttling): the model can correct it. */
      invalidQuery: boolean;
    },
    options?: { cause: unknown },
  ) {
    super(`${source}: ${message}`, options);
  }
}

/** Classifies an HTTP status of a source's answer. */
export function statusKind(status: number): { retryable: boolean; invalidQuery: boolean } {
  const retryable = status === 429 || status >= 500;
  return {
    retryable,
    invalidQuery: !retryable && status >= 400 && status < 500 && status !== 401 && status !== 403,
  };
}

/** The evidence ledger could not be written or read (DynamoDB). */
export class EvidenceLedgerError extends DescribedError {
  override readonly name = 'EvidenceLedgerError';
}

/**
 * A query the tools refuse (too broad, over the scope's budget, a source not enabled), with
 * the reason the model reads. Thrown inside the tools and turned into `ok: false` by
 * run-telemetry-tool.ts, never out of the Lambda.
 */
export class QueryRefusedError extends Error {
  override readonly name = 'QueryRefusedError';
  constructor(
    readonly reason: 'too_broad' | 'scope_budget' | 'unknown_service' | 'source_disabled' | 'invalid_query',
    message: string,
  ) {
    super(message);
  }
}
