import { invalidParameter, missingParameter, SqsError } from './errors.ts';

/**
 * Request parameter checks with SQS's own error codes. Requests arrive as parsed JSON, so
 * every field is checked for its type here rather than trusted.
 */

export function requireString(parameter: string, value: unknown): string {
  if (value === undefined || value === null || value === '') throw missingParameter(parameter);
  if (typeof value !== 'string') throw invalidParameter(parameter, value, 'must be a string.');
  return value;
}

export function optionalString(parameter: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidParameter(parameter, value, 'must be a string.');
  return value;
}

/** An integer in [min, max]; queue attributes arrive as strings, request fields as numbers. */
export function optionalInteger(
  parameter: string,
  value: unknown,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw invalidParameter(parameter, value, `must be an integer between ${min} and ${max}.`);
  }
  return number;
}

export function optionalStringList(parameter: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw invalidParameter(parameter, value, 'must be a list of strings.');
  }
  return value as string[];
}

export function optionalRecord(parameter: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParameter(parameter, value, 'must be a map.');
  }
  return value as Record<string, unknown>;
}

const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

/** The checks every batch action makes on its entries before touching any of them. */
export function requireBatchEntries(value: unknown, action: string): Array<Record<string, unknown>> {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    throw new SqsError(
      'EmptyBatchRequest',
      `There should be at least one ${action}RequestEntry in the request.`,
    );
  }
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'object' || entry === null)) {
    throw invalidParameter('Entries', value, 'must be a list of entries.');
  }
  if (value.length > 10) {
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are 10. You have sent ${value.length}.`,
    );
  }
  const seen = new Set<unknown>();
  for (const entry of value as Array<Record<string, unknown>>) {
    const id = entry.Id;
    if (typeof id !== 'string' || !BATCH_ENTRY_ID.test(id)) {
      throw new SqsError(
        'InvalidBatchEntryId',
        'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
      );
    }
    if (seen.has(id)) throw new SqsError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    seen.add(id);
  }
  return value as Array<Record<string, unknown>>;
}
