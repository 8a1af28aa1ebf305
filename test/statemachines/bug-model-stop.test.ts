import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AGENT_LIMITS } from '../../lambdas/agents/limits.ts';
import { BUG_INVESTIGATION_STATES as S } from '../../statemachines/bug-investigation/states.ts';
import { bugDefinition, error, message, runBugInvestigation, START, turn } from './bug-harness.ts';

/**
 * A model that cannot serve the bug investigation ends it: the reporter is told why, the
 * conversation is marked failed, and the execution fails with the model's error and cause,
 * after a bounded number of attempts. Nothing is escalated: no developer can take over a
 * model that is down or refuses the key.
 */

const report = message('reporter', 'The export button does nothing', START.threadTs ?? '');

beforeAll(() => {
  bugDefinition();
});

describe('a bug investigation whose model cannot serve it', () => {
  it('fails with the model error once the turn stayed unavailable through its retries, and tells the reporter', async () => {
    const cause = 'ModelCallError: the model API answered HTTP 529 overloaded_error: Overloaded';
    const attempts = DEFAULT_AGENT_LIMITS.modelRetry.maxAttempts + 1;
    const run = await runBugInvestigation({
      agent: Array.from({ length: attempts }, () => error('ModelUnavailableError', cause)),
      drains: [{ messages: [report] }],
    });

    // The first attempt and the state machine's retries, no more.
    expect(run.agentInputs).toHaveLength(attempts);
    expect(run.failure?.message).toContain(cause);
    expect(run.statuses.at(-1)).toBe('failed');
    const told = run.posts.filter((post) => post.state === S.tellModelStop);
    expect(told.map((post) => [post.input.channel, post.input.threadTs, post.rendered.text])).toEqual([
      [
        report.channel,
        START.threadTs,
        ':warning: I had to stop this investigation: the model stayed unavailable through every retry. Post the report again in a few minutes.',
      ],
    ]);
    expect(run.posts.map((post) => post.state)).toEqual([S.acknowledgeReport, S.tellModelStop]);
    expect(run.slaStarts).toEqual([]);
  });

  it('fails at once with the model refusal a turn reports, and tells the reporter with its answer', async () => {
    const refusal = 'the model API answered HTTP 401 authentication_error: invalid x-api-key';
    const run = await runBugInvestigation({
      agent: [turn('escalate', { confidence: 0, error: refusal, modelError: refusal })],
      drains: [{ messages: [report] }],
    });

    expect(run.agentInputs).toHaveLength(1);
    expect(run.failure?.message).toContain(refusal);
    expect(run.statuses.at(-1)).toBe('failed');
    expect(run.posts.map((post) => [post.state, post.rendered.text])).toEqual([
      [S.acknowledgeReport, expect.any(String)],
      [
        S.tellModelStop,
        `:warning: I had to stop this investigation: the model refused its requests (${refusal}). Tell the people who run this app; post the report again once they have fixed it.`,
      ],
    ]);
  });

  it('still escalates a turn that failed for another reason (the function crashed)', async () => {
    const run = await runBugInvestigation({
      agent: [error('Runtime.ExitError')],
      drains: [{ messages: [report] }],
      waits: ['timeout'],
    });

    expect(run.failure).toBeUndefined();
    expect(run.posts.map((post) => post.state)).toContain(S.escalate);
    expect(run.posts.map((post) => post.state)).not.toContain(S.tellModelStop);
  });
});
