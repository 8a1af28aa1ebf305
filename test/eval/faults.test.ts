import { describe, expect, it } from 'vitest';
import { failedAt, failureOf, faultOf } from '../../eval/drivers/faults.ts';
import type { ExecutionView, Session } from '../../eval/session.ts';

/** A session that knows only these executions, by name. */
const sessionOf = (executions: Record<string, ExecutionView>) =>
  ({ execution: (name: string) => executions[name] }) as unknown as Session;
const at = (seconds: number) => new Date(Date.UTC(2001, 0, 1, 9, 0, seconds));

describe("a case's execution watched for faults", () => {
  it('names a failed, stopped or timed-out execution with its own error and cause', () => {
    const failed = {
      status: 'FAILED',
      error: 'ModelUnavailableError',
      cause: 'HTTP 401: invalid x-api-key',
      history: [],
    };
    expect(failureOf(failed)).toBe(
      'the execution failed: ModelUnavailableError: HTTP 401: invalid x-api-key',
    );
    // A Lambda function's error, as Step Functions carries it: its message, without the JSON and trace.
    const lambdaError = JSON.stringify({
      errorType: 'ModelUnavailableError',
      errorMessage: 'the model API answered HTTP 502 api_error: fetch failed',
      trace: ['ModelUnavailableError: the model API answered HTTP 502', '    at callModel (model.ts:1:1)'],
    });
    expect(failureOf({ ...failed, cause: lambdaError })).toBe(
      'the execution failed: ModelUnavailableError: the model API answered HTTP 502 api_error: fetch failed',
    );
    expect(failureOf({ status: 'ABORTED', history: [] })).toBe('the execution aborted');
    expect(failureOf({ status: 'RUNNING', history: [] })).toBeUndefined();
    expect(failureOf({ status: 'SUCCEEDED', history: [] })).toBeUndefined();
  });

  it('names a failure a state caught before the workflow escalated, and an agent turn that gave up', () => {
    const caught = {
      status: 'SUCCEEDED',
      history: [
        { type: 'TaskStateEntered', input: { turn: 1 } },
        {
          type: 'TaskStateEntered',
          input: { failure: { Error: 'ModelUnavailableError', Cause: 'connect ECONNREFUSED' } },
        },
      ],
    };
    expect(faultOf(caught)).toBe(
      'a step failed and the workflow escalated: ModelUnavailableError: connect ECONNREFUSED',
    );
    const gaveUp = {
      status: 'RUNNING',
      history: [
        { type: 'TaskSucceeded', output: { action: 'escalate', error: 'the daily budget is spent' } },
      ],
    };
    expect(faultOf(gaveUp)).toBe('an agent turn stopped: the daily budget is spent');
    expect(
      faultOf({
        status: 'RUNNING',
        history: [{ type: 'TaskSucceeded', output: { action: 'post_findings' } }],
      }),
    ).toBeUndefined();
  });

  it('dates the failure a case is measured from: a caught failure first, else the end of a failed execution', () => {
    const failed: ExecutionView = { status: 'FAILED', stopDate: at(40), history: [] };
    const caughtThenFailed: ExecutionView = {
      status: 'FAILED',
      stopDate: at(30),
      history: [
        { type: 'TaskStateEntered', timestamp: at(10), input: { turn: 1 } },
        {
          type: 'PassStateEntered',
          timestamp: at(25),
          input: { failure: { Error: 'ModelUnavailableError', Cause: 'HTTP 502' } },
        },
      ],
    };
    const succeeded: ExecutionView = { status: 'SUCCEEDED', stopDate: at(5), history: [] };
    const session = sessionOf({ failed, caughtThenFailed, succeeded });

    expect(failedAt(session, ['failed'])).toBe(at(40).getTime());
    expect(failedAt(session, ['caughtThenFailed'])).toBe(at(25).getTime());
    expect(failedAt(session, ['failed', 'caughtThenFailed'])).toBe(at(25).getTime());
    expect(failedAt(session, ['succeeded', 'unknown'])).toBeUndefined();
  });
});
