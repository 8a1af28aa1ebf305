import { describe, expect, it } from 'vitest';
import { stopCauseOf, stopSentence } from '../../lambdas/kernel/stop-causes.ts';
import { AGENT_STOPPED_TEMPLATE } from '../../lambdas/slack/templates/agent-stopped.ts';

const INVESTIGATION = { work: 'investigation', command: '/investigate' };

describe('why a workflow stopped, in words', () => {
  it('tells the daily cost ceiling apart from a conversation budget', () => {
    expect(
      stopCauseOf({
        Error: 'AgentTurnStopped',
        Cause:
          'the platform reached its spending ceiling of $5.00 of estimated model cost for today (2015-11-26, UTC)',
      }),
    ).toBe('cost_ceiling');
    expect(
      stopCauseOf({ Error: 'AgentTurnStopped', Cause: 'it used its budget of 200,000 model tokens' }),
    ).toBe('budget');
  });

  it('counts a limit on turns without a result as a turn that did not finish', () => {
    expect(
      stopCauseOf({
        Error: 'AgentTurnStopped',
        Cause: 'it ran out of its per-turn budget 5 turns in a row without reaching a result',
      }),
    ).toBe('turn_unfinished');
  });

  it('maps the model, time-out and unknown errors', () => {
    expect(stopCauseOf({ Error: 'ModelUnavailableError', Cause: 'HTTP 529' })).toBe('model_unavailable');
    expect(stopCauseOf({ Error: 'States.Timeout' })).toBe('timed_out');
    expect(stopCauseOf({ Error: 'Lambda.ServiceException' })).toBe('step_failed');
    expect(stopCauseOf({})).toBe('step_failed');
  });

  it('says what to do after a budget stop', () => {
    expect(
      stopSentence(
        { Error: 'AgentTurnStopped', Cause: 'it used its budget of $0.50 of estimated model cost' },
        INVESTIGATION,
      ),
    ).toBe(
      ':warning: I had to stop this investigation: it used its budget of $0.50 of estimated model cost. Run /investigate again to start over with a fresh budget.',
    );
  });

  it('tells a model outage without its technical cause, and says when to try again', () => {
    expect(
      stopSentence(
        { Error: 'ModelUnavailableError', Cause: '{"errorMessage":"HTTP 529 overloaded"}' },
        INVESTIGATION,
      ),
    ).toBe(
      ':warning: I had to stop this investigation: the model stayed unavailable through every retry. Run /investigate again in a few minutes.',
    );
  });

  it("tells a refused model call with the model's answer, and work no command starts by what to do instead", () => {
    const refused = {
      Error: 'ModelCallError',
      Cause: 'the model API answered HTTP 401 authentication_error: invalid x-api-key',
    };
    expect(stopCauseOf(refused)).toBe('model_refused');
    expect(stopSentence(refused, { work: 'investigation', restart: 'Post the report again' })).toBe(
      ':warning: I had to stop this investigation: the model refused its requests (the model API answered HTTP 401 authentication_error: invalid x-api-key). Tell the people who run this app; post the report again once they have fixed it.',
    );
    expect(AGENT_STOPPED_TEMPLATE.data.safeParse({ failure: refused, work: 'investigation' }).success).toBe(
      false,
    );
  });

  it('names an unknown error and who to tell, even without a cause', () => {
    expect(stopSentence({ Error: 'Lambda.ServiceException' }, { work: 'interview', command: '/prd' })).toBe(
      ':warning: I had to stop this interview: a step failed (Lambda.ServiceException). Run /prd again to start over; if it fails again, tell the people who run this app.',
    );
  });

  it('is rendered by the agent_stopped template from the failure a Catch recorded', () => {
    const data = AGENT_STOPPED_TEMPLATE.data.parse({
      failure: {
        Error: 'AgentTurnUnfinished',
        Cause: 'the model did not submit a result after 12 tool rounds and a reminder',
      },
      ...INVESTIGATION,
    });
    expect(AGENT_STOPPED_TEMPLATE.render(data).text).toBe(
      ':warning: I had to stop this investigation: an agent turn ended without a result (the model did not submit a result after 12 tool rounds and a reminder). Run /investigate again to start over; if it happens again, tell the people who run this app.',
    );
  });
});
