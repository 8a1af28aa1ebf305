import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BugHarness } from './bug-harness.ts';
import {
  LIMITS,
  MODEL_MAX_RETRIES,
  MODEL_SCENARIOS,
  runScenario,
  type Scenario,
  type ScenarioResult,
  SLACK_SCENARIOS,
  startMisbehaviourHarness,
} from './misbehaviour-scenarios.ts';
import { refusedSentence } from './model-refusal.ts';

/**
 * In the sandbox: a misbehaving model and a misbehaving
 * Slack (switched on through `/sandbox/faults`). Each conversation ends in a defined state,
 * its people are told, no message is lost or answered twice, and the model calls stay within
 * the configured bounds.
 */

let h: BugHarness;

beforeAll(async () => {
  h = await startMisbehaviourHarness();
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const scenario = (list: Scenario[], name: string): Scenario => {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

/** Every stored person's message reached a turn or the close; the bot's posts each appear once. */
function expectNothingLostOrDoubled(result: ScenarioResult): void {
  const incoming = result.messages.filter((m) => m.senderType !== 'bot');
  expect(incoming.length).toBeGreaterThan(0);
  expect(incoming.filter((m) => m.deliveredInTurn === undefined)).toEqual([]);
  expect(new Set(result.reporterThread).size).toBe(result.reporterThread.length);
}

/** the reporter hears the findings went to the developers, and the close carries the cost. */
const FINDINGS_POSTED = expect.stringContaining(
  "I've posted what I found for the developers in <#C_BUG_SUMMARIES>",
);
const CLOSED_WITH_COST = expect.stringMatching(
  /^:white_check_mark: Closing this, thanks\.\n:moneybag: Estimated model cost of this conversation: \$\d/,
);
const STOPPED = "I had to stop investigating this automatically, so I've asked the developers to take over";
/** What the reporter reads when the model stayed unavailable through every retry. */
const MODEL_UNAVAILABLE =
  ':warning: I had to stop this investigation: the model stayed unavailable through every retry. Post the report again in a few minutes.';
/** The agent turn's attempts the state machine makes for an unavailable model. */
const TURN_ATTEMPTS = LIMITS.modelRetry.maxAttempts + 1;

describe('a misbehaving model', () => {
  it('that never submits: the turn fails after its tool rounds and a reminder, and the reporter is told', async () => {
    const result = await runScenario(h, scenario(MODEL_SCENARIOS, 'model never submits'));

    expect(result.modelCalls).toBe(LIMITS.maxToolRounds + 2);
    expect(result.reporterThread).toEqual([
      ":eyes: Thanks! I'm looking into this.",
      expect.stringContaining(STOPPED),
      FINDINGS_POSTED,
      CLOSED_WITH_COST,
    ]);
    expect(result.reporterThread[1]).toContain('did not submit a result after 5 tool rounds and a reminder');
    expect(result.escalation).toContain('<!subteam^S_ONCALL>');
    expect(result.endState).toBe('resolved (SUCCEEDED)');
    expectNothingLostOrDoubled(result);
  });

  it("that hangs: each call ends at its timeout, the state machine retries minutes apart, then the conversation fails with the model's cause", async () => {
    const result = await runScenario(h, scenario(MODEL_SCENARIOS, 'model hangs'));

    expect(result.modelCalls).toBe(TURN_ATTEMPTS * (MODEL_MAX_RETRIES + 1));
    expect(result.reporterThread).toEqual([":eyes: Thanks! I'm looking into this.", MODEL_UNAVAILABLE]);
    expect(result.executionError).toMatch(/^ModelUnavailableError: .*the model API timed out/);
    // Nobody is paged for a model no developer can take over.
    expect(result.escalation).toBeUndefined();
    expect(result.findingsPosts).toBe(0);
    expect(result.endState).toBe('failed (FAILED)');
    expectNothingLostOrDoubled(result);
  });

  it('that answers 429 with retry-after: 3600: no hour-long wait, a bounded number of calls, then the conversation fails', async () => {
    const result = await runScenario(h, scenario(MODEL_SCENARIOS, 'model 429, retry-after 3600 s'));

    expect(result.modelCalls).toBe(TURN_ATTEMPTS);
    // Not waited out: the client's cap on retry-after ended the call and said what was asked
    // (a wait of an hour would also stall the run's waits, which fail on no progress).
    expect(result.executionError).toContain('(it asked to wait 3600 s)');
    expect(result.reporterThread).toEqual([":eyes: Thanks! I'm looking into this.", MODEL_UNAVAILABLE]);
    expect(result.executionError).toMatch(/^ModelUnavailableError: .*HTTP 429 rate_limit_error/);
    expect(result.escalation).toBeUndefined();
    expect(result.endState).toBe('failed (FAILED)');
    expectNothingLostOrDoubled(result);
  });

  it("that rejects the key: one call, no retry, and the conversation fails with the model's answer", async () => {
    const result = await runScenario(h, scenario(MODEL_SCENARIOS, 'model rejects the key'));

    expect(result.modelCalls).toBe(1);
    // The error's name once: the cause is the API's answer.
    expect(result.executionError).toBe(
      'ModelCallError: the model API answered HTTP 401 authentication_error: invalid x-api-key (sandbox fault)',
    );
    expect(result.reporterThread).toEqual([
      ":eyes: Thanks! I'm looking into this.",
      refusedSentence('investigation', 'post the report again'),
    ]);
    expect(result.escalation).toBeUndefined();
    expect(result.endState).toBe('failed (FAILED)');
    expectNothingLostOrDoubled(result);
  });

  it('that answers 500 for a minute: the turn is retried after the outage, and nobody is paged', async () => {
    const result = await runScenario(h, scenario(MODEL_SCENARIOS, 'model 500s for a minute'));

    // At least one 500, then the scripted turn's two calls; never more than the retries allow.
    expect(result.modelCalls).toBeGreaterThanOrEqual(3);
    expect(result.modelCalls).toBeLessThanOrEqual(TURN_ATTEMPTS + 2);
    expect(result.escalation).toBeUndefined();
    expect(result.findingsPosts).toBe(1);
    expect(result.reporterThread.join('\n')).not.toContain(STOPPED);
    expect(result.endState).toBe('resolved (SUCCEEDED)');
    expectNothingLostOrDoubled(result);
  });
});

describe('a misbehaving Slack', () => {
  it('that answers 500 for a minute: the conversation goes on, every post once', async () => {
    const result = await runScenario(h, scenario(SLACK_SCENARIOS, 'Slack 500s for a minute'));

    expect(result.slackFaultsMet.length).toBeGreaterThan(0);
    expect(result.reporterThread).toEqual([
      ":eyes: Thanks! I'm looking into this.",
      FINDINGS_POSTED,
      CLOSED_WITH_COST,
    ]);
    expect(result.findingsPosts).toBe(1);
    expect(result.endState).toBe('resolved (SUCCEEDED)');
    expectNothingLostOrDoubled(result);
  });

  it('that accepts the findings and answers 500: posted once, and the reply in its thread reaches a turn', async () => {
    const result = await runScenario(h, scenario(SLACK_SCENARIOS, 'Slack accepts the findings, answers 500'));

    expect(result.slackFaultsMet).toEqual(['accepted_then_500']);
    expect(result.findingsPosts).toBe(1);
    expect(
      result.messages.filter((m) => m.text.includes('Firefox') && m.senderType === 'developer'),
    ).toHaveLength(1);
    expect(result.modelCalls).toBe(4);
    expect(result.endState).toBe('resolved (SUCCEEDED)');
    expectNothingLostOrDoubled(result);
  });

  it('that does not answer: the call times out, is retried, and the conversation goes on', async () => {
    const result = await runScenario(h, scenario(SLACK_SCENARIOS, 'Slack does not answer'));

    expect(result.slackFaultsMet).toEqual(['no_answer']);
    expect(result.reporterThread).toEqual([
      ":eyes: Thanks! I'm looking into this.",
      FINDINGS_POSTED,
      CLOSED_WITH_COST,
    ]);
    expect(result.findingsPosts).toBe(1);
    expect(result.endState).toBe('resolved (SUCCEEDED)');
    expectNothingLostOrDoubled(result);
  });
});
