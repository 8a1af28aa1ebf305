import { describe, expect, it } from 'vitest';
import { withUsage } from '../support/scripted-model.ts';
import { expectFailedWithRefusal, refusedSentence } from './model-refusal.ts';
import {
  assess,
  botPosts,
  finished,
  PRODUCT,
  posted,
  REQUESTER,
  slashPrd,
  threadOf,
  useHarness,
  waitsForAnswer,
} from './requirements-harness.ts';

/**
 * the requirements interview's stops tell the requester why, not the generic "an agent turn
 * failed": a turn stopped by a money limit (`agentLimits.maxConversationCostUsd`, priced with the
 * default price of the configured model, claude-sonnet-5-5: $2 in, $10 out per million tokens),
 * and a model that refused the key (the sandbox's `key_rejected` fault).
 */

const h = useHarness({ agentLimits: { maxConversationCostUsd: 0.5 } });

describe('the requirements interview whose model refuses the key', () => {
  it("tells the requester the model refused its requests, with its answer, and fails with the model's error and cause", async () => {
    // The clarifier's one call meets the fault: 401, as the API answers a key it does not accept.
    h.sandbox.modelFaults.add({ kind: 'key_rejected', count: 1 });
    const id = await slashPrd(h, 'trigger-key-rejected', 'A dashboard for build times');
    const thread = await threadOf(h, id);

    expectFailedWithRefusal(await finished(h, id));
    expect((await botPosts(h, thread)).at(-1)?.text).toBe(refusedSentence('interview', 'run /prd again'));
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({ status: 'failed' });
    // No call reached the model behind the fault.
    expect(h.requestsOf(id)).toEqual([]);
  });
});

describe('the requirements interview under a money budget', () => {
  it('tells the requester the interview stopped because it used its money budget, and fails the conversation', async () => {
    const id = await slashPrd(h, 'trigger-money-budget', 'A dashboard for build times');
    // One call: 1,000 in ($0.002) and 60,000 out ($0.60), past the $0.50 budget.
    h.script(id, [
      withUsage(assess({ confidence: 40, questions: ['Which builds?'] }), {
        input_tokens: 1_000,
        output_tokens: 60_000,
      }),
    ]);
    const thread = await threadOf(h, id);
    await posted(h, thread, 'Confidence: 40%');
    await waitsForAnswer(h, id);

    await h.post(PRODUCT, REQUESTER, 'The CI builds of the main repository', thread);
    const execution = await finished(h, id);

    expect(execution.status).toBe('FAILED');
    const last = (await botPosts(h, thread)).at(-1)?.text;
    expect(last).toBe(
      ':warning: I had to stop this interview: it used its budget of $0.50 of estimated model cost. Run /prd again to start over with a fresh budget.',
    );
    // The second turn made no model call.
    expect(h.requestsOf(id)).toHaveLength(1);
    const conversation = await h.store.getConversation(id, { consistent: true });
    expect(conversation).toMatchObject({ status: 'failed', ledger: { costMicroUsd: 602_000 } });
  });
});
