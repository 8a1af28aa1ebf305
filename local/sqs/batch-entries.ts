import { SqsError } from './errors.ts';

/** A batch request's per-entry outcome: each entry succeeds or fails on its own, as SQS answers batches. */

export interface BatchResultError {
  Id: string;
  SenderFault: boolean;
  Code: string;
  Message: string;
}

/** Applies `apply` to each entry; an entry's SqsError fails that entry only (any other error, the request). */
export function perEntry<T>(
  entries: Array<Record<string, unknown>>,
  apply: (entry: Record<string, unknown>) => T,
): { Successful: T[]; Failed: BatchResultError[] } {
  const Successful: T[] = [];
  const Failed: BatchResultError[] = [];
  for (const entry of entries) {
    try {
      Successful.push(apply(entry));
    } catch (error) {
      if (!(error instanceof SqsError)) throw error;
      Failed.push({ Id: String(entry.Id), SenderFault: true, Code: error.name, Message: error.message });
    }
  }
  return { Successful, Failed };
}
