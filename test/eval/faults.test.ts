import { describe, expect, it } from 'vitest';
import { failureOf, faultOf } from '../../eval/drivers/faults.ts';

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
});
