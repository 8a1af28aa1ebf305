import { describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import {
  botPosts,
  finished,
  interviewRecord,
  PARTICIPANT,
  PRODUCT,
  posted,
  REQUESTER,
  slashPrd,
  threadOf,
  useHarness,
  waitsForAnswer,
} from './requirements-harness.ts';

/**
 * `/prd` in the sandbox as `npm run dev` runs it without model credentials: the offline demo
 * model plays the three agents, through the real agent turns and their validation.
 */

describe('the requirements interview with the offline demo model', () => {
  const h = useHarness({}, { model: 'demo' });

  it('asks until two answers bring it to 98, then posts a labelled PRD and its analysis, and completes', async () => {
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

  it('starts an interview in the thread of a mention with a product idea; a plain mention is a channel conversation', async () => {
    const mention = await h.post(PRODUCT, REQUESTER, '<@U_BOT> idea: a shared calendar for meeting rooms');
    const id = conversationIdFor('requirements_interview', PRODUCT, mention);
    // The interview runs in the mention's thread: its opening and its questions are replies there.
    await posted(h, mention, 'Requirements interview for <@U_REQ>');
    await posted(h, mention, 'Confidence: 50%');
    await waitsForAnswer(h, id);
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({
      workflow: 'requirements_interview',
      ownerId: REQUESTER,
    });

    // A mention that is no product idea is answered as a channel conversation, outside any workflow.
    const chat = await h.post(PRODUCT, PARTICIPANT, '<@U_BOT> what time is the standup?');
    const answer = await h.eventually(
      async () => (await h.messages(PRODUCT)).filter((m) => m.bot && Number(m.ts) > Number(chat)),
      (posts) => posts.length > 0,
      'the channel conversation answer',
    );
    expect(answer[0]?.text).toContain(DEMO_LABEL);
    expect(
      await h.store.getConversation(conversationIdFor('requirements_interview', PRODUCT, chat)),
    ).toBeUndefined();

    // The requester's "cancel" in the mention's thread ends the interview.
    await h.post(PRODUCT, REQUESTER, 'cancel', mention);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({ status: 'closed' });
  });
});
