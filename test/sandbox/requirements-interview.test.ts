import { describe, expect, it } from 'vitest';
import {
  httpError,
  lastToolResults,
  malformed,
  type RecordedModelRequest,
  submit,
  toolResultText,
} from '../support/scripted-model.ts';
import { promptOfTurn, type Step } from './bug-harness.ts';
import {
  ANALYSIS,
  assess,
  botPosts,
  finished,
  interviewRecord,
  PARTICIPANT,
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
 * The requirements interview end to end in the sandbox with the default configuration:
 * `/prd` as a signed slash command in, the interview's posts and files out, a scripted model
 * asserted on.
 */

describe('the requirements interview with the default configuration', () => {
  const h = useHarness();

  it("runs the design's example: 50 -> 75 -> 98, then the PRD, the analysis, and complete", async () => {
    const prompts: string[] = [];
    const seen =
      (step: Step): Step =>
      (request: RecordedModelRequest) => {
        prompts.push(promptOfTurn(request));
        return typeof step === 'function' ? step(request) : step;
      };
    const id = await slashPrd(h, 'trigger-seed', 'I want to build an AI project manager');
    h.script(id, [
      seen(assess({ confidence: 50, questions: ['Q1', 'Q2', 'Q3', 'Q4', 'Q5'] })),
      seen(assess({ confidence: 75, questions: ['Q6', 'Q7', 'Q8'] })),
      seen(assess({ confidence: 98, questions: [] })),
      seen(submit(PRD)),
      seen(submit(ANALYSIS)),
    ]);
    const thread = await threadOf(h, id);

    await posted(h, thread, 'Confidence: 50%');
    await waitsForAnswer(h, id);
    expect(await interviewRecord(h, id)).toMatchObject({
      currentAgent: 'clarification',
      confidence: 50,
      turnsInAgent: 1,
      confidenceHistory: [{ turn: 1, confidence: 50 }],
      metadata: { confidenceThreshold: 95, maxClarificationTurns: 5 },
    });
    const questions = (await botPosts(h, thread)).find((p) => p.text.includes('Confidence: 50%'));
    expect(questions?.text).toContain('1. Q1\n2. Q2\n3. Q3\n4. Q4\n5. Q5');

    await h.post(PRODUCT, REQUESTER, 'It should help with task scheduling and team management', thread);
    await posted(h, thread, 'Confidence: 75%');
    await waitsForAnswer(h, id);
    expect(await interviewRecord(h, id)).toMatchObject({
      currentAgent: 'clarification',
      confidence: 75,
      turnsInAgent: 2,
      confidenceHistory: [
        { turn: 1, confidence: 50 },
        { turn: 2, confidence: 75 },
      ],
    });

    await h.post(PRODUCT, REQUESTER, 'For software development teams, 10-50 people', thread);
    const execution = await finished(h, id);

    expect(execution.status).toBe('SUCCEEDED');
    expect(prompts[0]).toContain(
      '"from":"U_REQ","role":"requester","verified":true,"text":"/prd I want to build an AI project manager',
    );
    expect(prompts[1]).toContain(
      '"from":"U_REQ","role":"requester","verified":true,"text":"It should help with task scheduling and team management',
    );
    expect(prompts[2]).toContain(
      '"from":"U_REQ","role":"requester","verified":true,"text":"For software development teams, 10-50 people',
    );
    const record = await interviewRecord(h, id);
    expect(record).toMatchObject({
      currentAgent: 'complete',
      confidence: 98,
      confidenceHistory: [
        { turn: 1, confidence: 50 },
        { turn: 2, confidence: 75 },
        { turn: 3, confidence: 98 },
      ],
    });
    expect(record?.transitions.map((t) => `${t.event}:${t.agent}`)).toEqual([
      'clarification_agent_start:clarification',
      'clarification_agent_completed:clarification',
      'confidence_check:clarification',
      'clarification_agent_completed:clarification',
      'confidence_check:clarification',
      'clarification_agent_completed:clarification',
      'confidence_check:clarification',
      'prd_generation_start:prd_generator',
      'analysis_agent_start:analysis',
      'complete:complete',
    ]);
    // Every transition is timed: ISO times, in the order the transitions happened.
    const times = [...(record?.transitions ?? []), ...(record?.confidenceHistory ?? [])].map((t) => t.at);
    expect(times).toHaveLength(13);
    expect(record?.transitions.filter((t) => t.event === 'confidence_check')).toEqual([
      expect.objectContaining({ confidence: 50, threshold: 95, outcome: 'below_threshold', turnsInAgent: 1 }),
      expect.objectContaining({ confidence: 75, threshold: 95, outcome: 'below_threshold', turnsInAgent: 2 }),
      expect.objectContaining({ confidence: 98, threshold: 95, outcome: 'threshold_met', turnsInAgent: 3 }),
    ]);
    for (const at of times) expect(new Date(at).toISOString()).toBe(at);
    const transitionTimes = record?.transitions.map((t) => Date.parse(t.at)) ?? [];
    expect(transitionTimes).toEqual([...transitionTimes].sort((a, b) => a - b));
    expect(record?.confidenceHistory.map((entry) => entry.at)).toEqual(
      record?.transitions.filter((t) => t.event === 'clarification_agent_completed').map((t) => t.at),
    );
    const conversation = await h.store.getConversation(id, { consistent: true });
    expect(conversation).toMatchObject({ status: 'resolved', phase: 'complete' });
    const posts = await botPosts(h, thread);
    const withFiles = posts.filter((p) => (p as { files?: unknown[] }).files !== undefined);
    expect(withFiles.map((p) => (p as { files?: { filename: string }[] }).files?.[0]?.filename)).toEqual([
      'prd-ai-project-manager.md',
      'analysis-ai-project-manager.md',
    ]);
    const [prdFile, analysisFile] = withFiles.map(
      (p) => (p as { files?: { content: string }[] }).files?.[0]?.content ?? '',
    );
    expect(prdFile).toContain('## Functional requirements\n\n- Suggests a weekly schedule');
    expect(analysisFile).toContain('## Risks\n\n- **Dependencies**: The calendar API is rate-limited.');
    expect(posts.some((p) => p.text === 'PRD: AI project manager')).toBe(true);
    // the last message, the analysis (its file follows), carries the interview's estimated model cost.
    const costed = posts.filter((p) =>
      p.text.includes(':moneybag: Estimated model cost of this conversation: $'),
    );
    expect(costed).toHaveLength(1);
    const blocks = JSON.stringify((costed[0] as { blocks?: unknown }).blocks);
    expect(blocks).toContain(':mag: Analysis: AI project manager');
    expect(blocks).toContain(':moneybag: Estimated model cost');
  });

  it("hands an answer sent while the clarification turn runs to the next turn, labelling a participant's as theirs", async () => {
    const id = await slashPrd(h, 'trigger-during-turn', 'A tool for on-call handovers');
    let nextPrompt = '';
    h.script(id, [
      assess({ confidence: 40, questions: ['Who hands over to whom?'] }),
      async (request) => {
        // The answer arrives while this (second) turn still runs: it must wait for the third.
        expect(promptOfTurn(request)).toContain(
          '"from":"U_REQ","role":"requester","verified":true,"text":"Engineers on call',
        );
        await h.post(PRODUCT, PARTICIPANT, 'Also the incident commander', await threadOf(h, id));
        await h.eventually(
          () => h.store.listMessages(id),
          (messages) => messages.some((m) => m.text === 'Also the incident commander'),
          'the participant message to be stored',
        );
        return assess({ confidence: 60, questions: ['How often?'] });
      },
      (request) => {
        nextPrompt = promptOfTurn(request);
        return assess({ confidence: 60, questions: ['How often?'] });
      },
    ]);
    const thread = await threadOf(h, id);
    await posted(h, thread, 'Confidence: 40%');
    await waitsForAnswer(h, id);

    await h.post(PRODUCT, REQUESTER, 'Engineers on call', thread);
    await posted(h, thread, 'Confidence: 60%');
    // The participant's message was pending when the wait began: the wait ends at once.
    await h.eventually(
      async () => nextPrompt,
      (prompt) => prompt !== '',
      'the third clarification turn',
    );

    expect(nextPrompt).toContain(
      '"from":"U_PAT","role":"participant","verified":false,"text":"Also the incident commander',
    );
    expect(nextPrompt).not.toContain('Engineers on call');
    await waitsForAnswer(h, id);
    await h.post(PRODUCT, REQUESTER, 'cancel', thread);
    await finished(h, id);
  });

  it('rejects a confidence outside 0-100 and no questions below the threshold, and retries', async () => {
    const id = await slashPrd(h, 'trigger-invalid', 'A habit tracker');
    const errors: string[] = [];
    const errorOf = (request: RecordedModelRequest) => {
      const [result] = lastToolResults(request.body);
      errors.push(result ? toolResultText(result) : '');
    };
    h.script(id, [
      assess({ confidence: 120, questions: ['Q'] }),
      (request) => {
        errorOf(request);
        return assess({ confidence: 60, questions: [] });
      },
      (request) => {
        errorOf(request);
        return assess({ confidence: 60, questions: ['Which habits?'] });
      },
    ]);
    const thread = await threadOf(h, id);

    await posted(h, thread, 'Confidence: 60%');

    expect(errors[0]).toContain('confidence');
    expect(errors[1]).toContain('Your confidence 60 is below the threshold 95, but you asked no question');
    await waitsForAnswer(h, id);
    expect((await interviewRecord(h, id))?.confidenceHistory).toEqual([
      { turn: 1, confidence: 60, reason: 'Confidence 60', at: expect.any(String) },
    ]);
    await h.post(PRODUCT, REQUESTER, 'cancel', thread);
    await finished(h, id);
  });

  it('tells the requester in the thread when an agent turn fails after its retries, and fails the conversation', async () => {
    const id = await slashPrd(h, 'trigger-model-down', 'A dashboard for build times');
    // The API fails past the client's retries (two, in this harness): the turn ends `failed`.
    h.script(id, [httpError(500), httpError(529), malformed()]);
    const thread = await threadOf(h, id);

    const execution = await finished(h, id);

    expect(execution.status).toBe('FAILED');
    expect(h.requestsOf(id)).toHaveLength(3);
    expect((await botPosts(h, thread)).at(-1)?.text).toMatch(
      /^:warning: I had to stop this interview: an agent turn ended without a result \(.+\)\. Run \/prd again to start over/,
    );
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({ status: 'failed' });
  });

  it('ends cleanly when the requester says "cancel"', async () => {
    const id = await slashPrd(h, 'trigger-cancel', 'A recipe app');
    h.script(id, [assess({ confidence: 30, questions: ['For whom?'] })]);
    const thread = await threadOf(h, id);
    await posted(h, thread, 'Confidence: 30%');
    await waitsForAnswer(h, id);

    await h.post(PRODUCT, REQUESTER, 'cancel', thread);
    const execution = await finished(h, id);

    expect(execution.status).toBe('SUCCEEDED');
    expect((await botPosts(h, thread)).at(-1)?.text).toContain('Interview stopped');
    expect(await h.store.getConversation(id, { consistent: true })).toMatchObject({
      status: 'closed',
      phase: 'closed',
    });
    expect((await interviewRecord(h, id))?.transitions.at(-1)).toMatchObject({ event: 'closed' });
  });
});
