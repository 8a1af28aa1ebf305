import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LABEL } from '../../local/model/demo-model.ts';
import type { BugHarness } from './bug-harness.ts';
import {
  botPosts,
  finished,
  interviewRecord,
  PRODUCT,
  posted,
  REQUESTER,
  slashPrd,
  startHarness,
  threadOf,
  waitsForAnswer,
} from './requirements-harness.ts';

/**
 * `/prd` in the sandbox as `npm run dev` runs it without model credentials: the offline demo
 * model plays the three agents, through the real agent turns and their validation.
 */

describe('the requirements interview with the offline demo model', () => {
  let h: BugHarness;
  beforeAll(async () => {
    h = await startHarness({}, { model: 'demo' });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('asks until two answers bring it to 98, then posts a labelled PRD and its analysis, and completes', {
    timeout: 90_000,
  }, async () => {
    const id = await slashPrd(h, 'trigger-demo', 'A tool that plans team lunches');
    const thread = await threadOf(h, id);

    await posted(h, thread, 'Confidence: 50%');
    await waitsForAnswer(h, id);
    await h.post(PRODUCT, REQUESTER, 'For teams of 5-20 people in one office', thread);
    await posted(h, thread, 'Confidence: 75%');
    await waitsForAnswer(h, id);
    await h.post(PRODUCT, REQUESTER, 'It picks a place and splits the bill', thread);
    const execution = await finished(h, id);

    expect(execution.status).toBe('SUCCEEDED');
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({
      status: 'resolved',
      phase: 'complete',
    });
    expect((await interviewRecord(h, id))?.confidenceHistory.map((entry) => entry.confidence)).toEqual([
      50, 75, 98,
    ]);
    const posts = await botPosts(h, thread);
    const questions = posts.find((p) => p.text.includes('Confidence: 50%'));
    expect(questions?.text).toContain(`1. ${DEMO_LABEL} Who will use it`);
    const files = posts.flatMap(
      (p) => (p as { files?: { filename: string; content: string }[] }).files ?? [],
    );
    expect(files.map((file) => file.filename)).toEqual([
      'prd-offline-demo-model-a-tool-that-plans-team-lunches.md',
      'analysis-offline-demo-model-a-tool-that-plans-team-lunches.md',
    ]);
    const [prd, analysis] = files.map((file) => file.content);
    expect(prd).toContain(`# PRD: ${DEMO_LABEL} A tool that plans team lunches`);
    expect(prd).toContain('"For teams of 5-20 people in one office"');
    expect(prd).toContain('"It picks a place and splits the bill"');
    expect(analysis).toContain(`## Gaps\n\n- **Success metrics**: ${DEMO_LABEL}`);
  });
});
