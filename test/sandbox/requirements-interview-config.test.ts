import { describe, expect, it } from 'vitest';
import { submit } from '../support/scripted-model.ts';
import { promptOfTurn } from './bug-harness.ts';
import {
  ANALYSIS,
  assess,
  botPosts,
  finished,
  interviewRecord,
  PRD,
  PRODUCT,
  posted,
  REQUESTER,
  slashPrd,
  threadOf,
  useHarness,
  waitsForAnswer,
} from './requirements-harness.ts';

/**
 * The requirements interview under its own configuration (threshold, turn cap, answer wait),
 * in a sandbox of its own: the stack's configuration is fixed when the sandbox starts.
 */

describe('the requirements interview with its own configuration', () => {
  const h = useHarness({
    requirementsInterview: { confidenceThreshold: 70, maxClarificationTurns: 2, answerWaitSeconds: 3_000 },
  });

  it('writes the PRD once the confidence reaches the configured threshold', async () => {
    const id = await slashPrd(h, 'trigger-threshold', 'A team lunch planner');
    h.script(id, [assess({ confidence: 72, questions: [] }), submit(PRD), submit(ANALYSIS)]);

    const execution = await finished(h, id);

    expect(execution.status).toBe('SUCCEEDED');
    expect((await interviewRecord(h, id))?.confidenceHistory.map((entry) => entry.confidence)).toEqual([72]);
  });

  it('proceeds after the configured turn cap and lists the open unknowns for the PRD', async () => {
    const id = await slashPrd(h, 'trigger-cap', 'A parking spot finder');
    let prdPrompt = '';
    h.script(id, [
      assess({ confidence: 40, questions: ['Which city?'] }),
      assess({ confidence: 45, questions: ['Which cars?'], open_unknowns: ['Pricing model'] }),
      (request) => {
        prdPrompt = promptOfTurn(request);
        return submit(PRD);
      },
      submit(ANALYSIS),
    ]);
    const thread = await threadOf(h, id);
    await posted(h, thread, 'Confidence: 40%');
    await waitsForAnswer(h, id);

    await h.post(PRODUCT, REQUESTER, 'Berlin', thread);
    const execution = await finished(h, id);

    expect(execution.status).toBe('SUCCEEDED');
    expect(prdPrompt).toContain('limit of 2 clarification turns');
    expect(prdPrompt).toContain('Pricing model');
    expect((await botPosts(h, thread)).filter((p) => p.text.includes('Confidence:'))).toHaveLength(1);
    const checks = (await interviewRecord(h, id))?.transitions.filter((t) => t.event === 'confidence_check');
    expect(checks?.map((t) => [t.confidence, t.threshold, t.outcome])).toEqual([
      [40, 70, 'below_threshold'],
      [45, 70, 'turn_cap_reached'],
    ]);
  });

  it('reminds the requester once after the wait, then closes after the second', async () => {
    const id = await slashPrd(h, 'trigger-timeout', 'A meeting note taker');
    h.script(id, [assess({ confidence: 20, questions: ['Which meetings?'] })]);
    const thread = await threadOf(h, id);

    const execution = await finished(h, id);

    expect(execution.status).toBe('SUCCEEDED');
    const texts = (await botPosts(h, thread)).map((p) => p.text);
    expect(texts.filter((t) => t.includes('Reminder'))).toHaveLength(1);
    expect(texts.at(-1)).toContain('closing this interview');
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({ status: 'closed' });
  });
});
