import type { ExecutionView, Session } from '../session.ts';
import type { Check } from '../types.ts';

/**
 * A case's execution watched for what ends it early: the execution failed, was stopped or timed
 * out (its own error and cause), or an agent turn gave up and escalated with an error (the model
 * unreachable, the key rejected, the budget spent). Drivers stop at once on a fault and fail
 * the case with it, instead of waiting out their deadline for an answer that cannot come.
 */

const ENDED_BADLY = new Set(['FAILED', 'ABORTED', 'TIMED_OUT']);

/** What every successful task of the execution returned, oldest first. */
export function taskOutputs(execution: ExecutionView | undefined): Record<string, unknown>[] {
  return (execution?.history ?? [])
    .filter((e) => e.type === 'TaskSucceeded' && typeof e.output === 'object' && e.output !== null)
    .map((e) => e.output as Record<string, unknown>);
}

/**
 * A failure's cause in words: a Lambda function's error as Step Functions carries it (the JSON
 * `{ errorType, errorMessage, trace }`) reads as its message; any other cause as it is.
 */
export function causeText(cause: unknown): string {
  const text = String(cause ?? '');
  try {
    const parsed = JSON.parse(text) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // Not JSON: the cause as it was written.
  }
  return text;
}

/** Why the execution failed, was stopped or timed out, in words; undefined while it runs or after it succeeded. */
export function failureOf(execution: ExecutionView | undefined): string | undefined {
  if (!execution || !ENDED_BADLY.has(execution.status)) return undefined;
  const why = [execution.error, execution.cause === undefined ? undefined : causeText(execution.cause)]
    .filter((x) => x)
    .join(': ');
  return `the execution ${execution.status.toLowerCase()}${why ? `: ${why.slice(0, 500)}` : ''}`;
}

/**
 * When the first of these executions failed (epoch ms): it failed, was stopped or timed out, or
 * one of its states caught a failure (the workflow then goes on to its own end: an escalation, a
 * blocked pipeline). Undefined when none did. The report measures from it how soon a case
 * ends after its execution failed.
 */
export function failedAt(session: Session, names: readonly string[]): number | undefined {
  const times = names.flatMap((name) => {
    const execution = session.execution(name);
    const caught = firstCaught(execution)?.event.timestamp;
    if (caught) return [caught.getTime()];
    return execution?.stopDate && ENDED_BADLY.has(execution.status) ? [execution.stopDate.getTime()] : [];
  });
  return times.length === 0 ? undefined : Math.min(...times);
}

type Caught = { event: ExecutionView['history'][number]; failure: { Error: string; Cause?: unknown } };

/** The first event carrying a failure a state caught and carried on with (`$.failure`: `{ Error, Cause }`), as the workflows' Catches put it. */
function firstCaught(execution: ExecutionView | undefined): Caught | undefined {
  for (const event of execution?.history ?? []) {
    for (const data of [event.input, event.output]) {
      const failure = (data as { failure?: { Error?: unknown; Cause?: unknown } } | undefined)?.failure;
      if (data && typeof data === 'object' && failure && typeof failure.Error === 'string')
        return { event, failure: { Error: failure.Error, Cause: failure.Cause } };
    }
  }
  return undefined;
}

/** A failure a state caught, in words. */
function caughtFailure(execution: ExecutionView | undefined): string | undefined {
  const caught = firstCaught(execution)?.failure;
  return caught
    ? `a step failed and the workflow escalated: ${caught.Error}: ${causeText(caught.Cause).slice(0, 500)}`
    : undefined;
}

/**
 * The failure of the execution; else a failure one of its states caught (the workflow then
 * escalates and ends normally); else the error an agent turn gave up with.
 */
export function faultOf(execution: ExecutionView | undefined): string | undefined {
  const failure = failureOf(execution) ?? caughtFailure(execution);
  if (failure) return failure;
  const gaveUp = taskOutputs(execution).find((o) => o.action === 'escalate' && typeof o.error === 'string');
  return gaveUp ? `an agent turn stopped: ${String(gaveUp.error).slice(0, 500)}` : undefined;
}

/** Why the execution named `name` ended badly, if it did: a driver stops waiting at once. */
export function executionFailure(session: Session, name: string): string | undefined {
  return failureOf(session.execution(name));
}

/**
 * A failed verdict's checks with the fault first: the cause, not its consequence. A failed,
 * stopped or timed-out execution is always named; a failure the workflow caught, or an agent
 * turn that gave up, only when the case got no answer (`answered` false), since a workflow
 * that answered anyway failed its case for another reason, which its checks tell.
 */
export function withFault(session: Session, name: string, answered: boolean, checks: Check[]): Check[] {
  if (checks.every((c) => c.pass)) return checks;
  const execution = session.execution(name);
  const fault = failureOf(execution) ?? (answered ? undefined : faultOf(execution));
  return fault ? [faultCheck(fault), ...checks] : checks;
}

/** The check a fault fails a case with. */
export const faultCheck = (fault: string): Check => ({ name: 'execution', pass: false, detail: fault });
