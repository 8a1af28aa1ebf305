import { describe, expect, it } from 'vitest';
import {
  REQUIREMENTS_INTERVIEW_STATES as S,
  REQUIREMENTS_INTERVIEW_TEXTS as T,
} from '../../statemachines/requirements-interview/states.ts';
import { type AslState, definitions, templateOf, UNHANDLED_NOTICE_STATES } from './template.ts';

/**
 * Edges of the requirements interview's graph (the production template) that its sandbox
 * scenarios cannot reach: the behaviour is in test/sandbox/requirements-*.test.ts.
 */
const interview = definitions(templateOf()).get('requirements_interview');
const state = (name: string): AslState => {
  const found = interview?.States[name];
  if (found === undefined) throw new Error(`no state "${name}"`);
  return found;
};

describe('the requirements_interview graph', () => {
  it('tells the requester of a failed agent turn, and marks the conversation failed even when that post fails', () => {
    const tell = state(S.tellFailure);

    expect(state(S.noteFailedAgent).Next).toBe(S.tellFailure);
    expect(tell.Next).toBe(S.markFailed);
    // The stop is told with its real cause: the failure at `$.failure`, worded by the template.
    expect((tell.Parameters as { Payload: { template: unknown } }).Payload.template).toEqual({
      name: 'agent_stopped',
      data: { 'failure.$': '$.failure', work: 'interview', command: '/prd' },
    });
    const [catcher] = tell.Catch as { ErrorEquals: string[]; Next: string; ResultPath: string }[];
    expect(catcher).toMatchObject({ ErrorEquals: ['States.ALL'], Next: S.markFailed });
    // The execution fails with the agent's error, not the post's.
    expect(catcher?.ResultPath).not.toBe('$.failure');
  });

  it("fails with the model's error and cause when the model cannot serve a turn, as every workflow does", () => {
    const turns = Object.entries(interview?.States ?? {}).filter(
      ([, s]) => s.Type === 'Task' && JSON.stringify(s.Parameters ?? {}).includes('"mode"'),
    );
    expect(turns.length).toBeGreaterThan(0);
    for (const [name, turn] of turns) {
      expect([name, (turn.Catch as { ErrorEquals: string[]; Next: string }[]).slice(0, 1)]).toEqual([
        name,
        [{ ErrorEquals: ['ModelUnavailableError'], ResultPath: '$.failure', Next: S.noteFailedAgent }],
      ]);
    }
    // A turn whose model refused its call is noted with the model's answer, before any other reason.
    expect(state('Stopped clarification with a reason?').Choices).toEqual([
      {
        Variable: '$.clarification.modelError',
        IsPresent: true,
        Next: 'Note the model refused clarification',
      },
      expect.objectContaining({ Variable: '$.clarification.stoppedBy' }),
      expect.objectContaining({ Variable: '$.clarification.error' }),
    ]);
    expect(state('Note the model refused clarification')).toMatchObject({
      Parameters: { Error: 'ModelCallError', 'Cause.$': '$.clarification.modelError' },
      ResultPath: '$.failure',
      Next: S.tellFailure,
    });
  });

  it('says, in the interview thread, that messages no turn saw at the close were not handled (a cosmetic post)', () => {
    expect(state(S.cleanUp).Next).toBe(UNHANDLED_NOTICE_STATES.anyDrained);
    expect(state(UNHANDLED_NOTICE_STATES.anyDrained)).toMatchObject({ Default: S.done });
    const tell = state(S.tellUnhandled);
    expect((tell.Parameters as { Payload: { text: string } }).Payload.text).toBe(T.unhandled);
    expect(tell.Next).toBe(S.done);
    // Cosmetic: its failure ends the close-out as done, not failed.
    expect((tell.Catch as { Next: string }[])[0]?.Next).toBe(S.done);
  });
});
