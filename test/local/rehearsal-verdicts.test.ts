import { describe, expect, it } from 'vitest';
import { ConversationEndedError } from '../../local/rehearsal/conversations.ts';
import { failedOnField, parseRename } from '../../local/rehearsal/incompatible-release.ts';
import { incompatibleFields, verdictLine, verdictOf } from '../../local/rehearsal/verdicts.ts';

/** The upgrade rehearsal's verdicts: one line per conversation, naming the fields a failure names. */

describe('the fields a failure names', () => {
  it('reads the JSONPaths Step Functions could not find', () => {
    const cause =
      "The JSONPath '$.turn.nextAction' specified for the field 'Variable' could not be found in the input";
    expect(incompatibleFields(cause)).toEqual(['turn.nextAction']);
    expect(incompatibleFields("Path '$['wake']['fromUser']' not found")).toEqual(['wake.fromUser']);
  });

  it('reads the paths zod refused, also inside an escaped Lambda error', () => {
    const cause = JSON.stringify({
      errorType: 'ZodError',
      errorMessage: JSON.stringify([
        { code: 'invalid_type', path: ['wait', 'reporterId'], message: 'Required' },
      ]),
    });
    expect(incompatibleFields(cause)).toEqual(['wait.reporterId']);
  });

  it('names nothing when the text names no field', () => {
    expect(incompatibleFields('States.Timeout: Task timed out')).toEqual([]);
  });
});

describe('a verdict line', () => {
  const conversation = { workflow: 'bug_investigation', wait: 'reporter' };

  it('passes a conversation that ended normally', () => {
    expect(verdictLine(verdictOf(conversation, 'finish'))).toMatch(
      /^PASS {2}bug_investigation +reporter +waited across the upgrade and ended normally$/,
    );
  });

  it('fails one whose execution failed after the upgrade, with its error, cause and fields', () => {
    const ended = new ConversationEndedError('bug-1', {
      name: 'bug-1',
      status: 'FAILED',
      error: 'States.Runtime',
      cause:
        "The JSONPath '$.turn.nextAction' specified for the field 'Variable' could not be found in the input",
      events: [],
    });
    const line = verdictLine(verdictOf(conversation, 'finish', ended));
    expect(line).toMatch(
      /^FAIL {2}bug_investigation +reporter +after the upgrade: bug-1 ended FAILED: States.Runtime: /,
    );
    expect(line).toMatch(/; incompatible field\(s\): turn\.nextAction$/);
  });
});

describe('the deliberately incompatible release', () => {
  const field = parseRename('turnContext=turnCtx');
  const reporter = { workflow: 'bug_investigation', wait: 'reporter' };
  const developers = { workflow: 'bug_investigation', wait: 'developers' };
  const failedOn = (cause: string) =>
    verdictOf(
      reporter,
      'finish',
      new ConversationEndedError('bug-1', {
        name: 'bug-1',
        status: 'FAILED',
        error: 'States.Runtime',
        cause,
        events: [],
      }),
    );

  it('takes old=new, two different identifiers', () => {
    expect(field).toEqual({ from: 'turnContext', to: 'turnCtx' });
    expect(() => parseRename('turnContext')).toThrow(/old=new/);
    expect(() => parseRename('a.b=c')).toThrow(/old=new/);
    expect(() => parseRename('same=same')).toThrow(/renames nothing/);
  });

  it('is caught only when a conversation failed and every failure names the field', () => {
    const onField = failedOn("Path expression '$.turnCtx.state' does not point to a value");
    const elsewhere = failedOn("The JSONPath '$.turn.nextAction' could not be found in the input");
    expect(failedOnField([onField, verdictOf(developers, 'finish')], field)).toBe(true);
    expect(failedOnField([verdictOf(reporter, 'finish'), verdictOf(developers, 'finish')], field)).toBe(
      false,
    );
    expect(failedOnField([onField, elsewhere], field)).toBe(false);
  });
});
