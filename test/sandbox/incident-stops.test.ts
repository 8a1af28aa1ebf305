import { describe, expect, it } from 'vitest';
import { utcDay } from '../../lambdas/agents/pricing.ts';
import { text, toolUse, withUsage } from '../support/scripted-model.ts';
import {
  finished,
  INCIDENTS,
  slashInvestigate,
  TRIAGE,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';
import { expectFailedWithRefusal, refusedSentence } from './model-refusal.ts';

/**
 * Every stop of an incident investigation is told in its thread with its real cause and what to
 * do, not as "an agent turn failed": a turn that never submitted, the daily cost ceiling
 * (priced with the default price of the configured model: $2 in, $10 out per million tokens),
 * and a model that refused the key (the sandbox's `key_rejected` fault).
 */
describe('an incident investigation that has to stop', () => {
  const h = useIncidentHarness({ agentLimits: { maxDailyCostUsd: 0.5 } });

  const lastBotPost = async (thread: string) =>
    (await h.messages(INCIDENTS, thread)).filter((m) => m.bot).at(-1)?.text;

  it('says a turn ended without a result when the triager never submits', async () => {
    const id = await slashInvestigate(h, 'trigger-no-submit', 'checkout latency');
    h.script(id, { submit_triage: [text('Checkout looks slow.'), text('Still looking.')] });
    const thread = await threadOf(h, id);

    expect((await finished(h, id)).status).toBe('FAILED');
    expect(await lastBotPost(thread)).toBe(
      ':warning: I had to stop this investigation: an agent turn ended without a result ' +
        '(the model answered without calling a tool (stop_reason end_turn)). ' +
        'Run /investigate again to start over; if it happens again, tell the people who run this app.',
    );
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({ status: 'failed' });
  });

  it("says the model refused its requests, with the model's answer, and fails with the model's error and cause", async () => {
    // The triager's one call meets the fault: 401, as the API answers a key it does not accept.
    h.sandbox.modelFaults.add({ kind: 'key_rejected', count: 1 });
    const id = await slashInvestigate(h, 'trigger-key-rejected', 'checkout latency');
    const thread = await threadOf(h, id);

    expectFailedWithRefusal(await finished(h, id));
    expect(await lastBotPost(thread)).toBe(refusedSentence('investigation', 'run /investigate again'));
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({ status: 'failed' });
    // No call reached the model behind the fault, and no later phase ran.
    expect(h.requestsOf(id)).toEqual([]);
  });

  it('says the daily cost ceiling stopped it, and when to try again', async () => {
    const id = await slashInvestigate(h, 'trigger-ceiling', 'checkout latency');
    // One call: 1,000 in ($0.002) and 60,000 out ($0.60), past the $0.50 ceiling.
    h.script(id, {
      submit_triage: [
        withUsage(toolUse('submit_triage', TRIAGE), { input_tokens: 1_000, output_tokens: 60_000 }),
      ],
    });
    const thread = await threadOf(h, id);

    expect((await finished(h, id)).status).toBe('FAILED');
    expect(await lastBotPost(thread)).toBe(
      ':warning: I had to stop this investigation: the platform reached its spending ceiling of $0.50 of ' +
        `estimated model cost for today (${utcDay(new Date())}, UTC); it resets at midnight UTC. ` +
        'Run /investigate again after the ceiling resets at midnight UTC, or ask an admin to raise the daily ceiling.',
    );
    // The hypothesizer's turn made no model call.
    expect(h.requestsOf(id).map((r) => r.queue)).toEqual(['submit_triage']);
  });
});
