import { describe, expect, it } from 'vitest';
import { AgentLimits } from '../../lambdas/agents/limits.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { renderPrdMarkdown } from '../../lambdas/workflows/requirements-interview/profiles/prd-writer.ts';
import {
  lastToolResults,
  lastUserText,
  submit,
  systemText,
  toolResultText,
} from '../support/scripted-model.ts';
import { clarifierInput, drained, MemoryTranscripts, turnDeps, useScriptedModel } from './support.ts';

const scripted = useScriptedModel();

const assessment = {
  confidence: 50,
  confidence_reason: 'I know the idea, not its users.',
  understanding: 'An AI project manager.',
  questions: ['Who uses it?', 'Which tasks does it take over?'],
};

const prd = {
  title: 'AI project manager',
  problem: 'Teams lose time scheduling.',
  goals: ['Schedule tasks automatically'],
  non_goals: [],
  users: ['Software teams of 10-50 people'],
  user_stories: ['As a lead, I want tasks scheduled, so that I can plan less.'],
  functional_requirements: ['Suggests a schedule'],
  non_functional_requirements: ['Answers within 2 s'],
  success_metrics: ['Planning time -30%'],
  scope: { in: ['Scheduling'], out: ['Billing'] },
  dependencies: ['Calendar API'],
  open_questions: ['Which calendar?'],
  milestones: ['MVP', 'Beta'],
};

describe('the requirements clarifier', () => {
  it('labels the requester and another participant in the prompt, and returns its assessment', async () => {
    const server = await scripted([submit(assessment)]);

    const output = await runAgentTurn(
      clarifierInput({
        messages: [
          drained('requester', 'U_REQ', 'For software teams'),
          drained('participant', 'U_PAT', 'Mostly 10-50 people'),
        ],
      }),
      turnDeps(server.baseUrl),
    );

    const request = server.requests[0]?.body;
    if (request === undefined) throw new Error('the model was not called');
    expect(lastUserText(request)).toContain(
      '"from":"U_REQ","role":"requester","verified":true,"text":"For software teams',
    );
    expect(lastUserText(request)).toContain(
      '"from":"U_PAT","role":"participant","verified":false,"text":"Mostly 10-50 people',
    );
    expect(lastUserText(request)).toContain('The confidence threshold is 95');
    expect(systemText(request)).toContain('fewest questions');
    expect(output).toEqual({
      action: 'assessed',
      sessionId: 'session-1',
      confidence: 50,
      confidenceReason: 'I know the idea, not its users.',
      understanding: 'An AI project manager.',
      questions: ['Who uses it?', 'Which tasks does it take over?'],
      openUnknowns: [],
    });
  });

  it('rejects a confidence outside 0-100 and accepts the corrected assessment', async () => {
    const server = await scripted([
      submit({ ...assessment, confidence: 150 }),
      (request) => {
        const [result] = lastToolResults(request.body);
        if (result === undefined) throw new Error('no tool result');
        expect(result.is_error).toBe(true);
        expect(toolResultText(result)).toContain('confidence');
        return submit(assessment);
      },
    ]);

    const output = await runAgentTurn(clarifierInput(), turnDeps(server.baseUrl));

    expect(output).toMatchObject({ action: 'assessed', confidence: 50 });
  });

  it('rejects an assessment below the threshold without questions, using the threshold it was given', async () => {
    const server = await scripted([
      submit({ ...assessment, confidence: 80, questions: [] }),
      (request) => {
        const [result] = lastToolResults(request.body);
        if (result === undefined) throw new Error('no tool result');
        expect(toolResultText(result)).toContain(
          'Your confidence 80 is below the threshold 85, but you asked no question',
        );
        return submit({ ...assessment, confidence: 85, questions: [] });
      },
    ]);

    const output = await runAgentTurn(clarifierInput({ confidenceThreshold: 85 }), turnDeps(server.baseUrl));

    expect(output).toMatchObject({ action: 'assessed', confidence: 85, questions: [] });
  });

  it('fails the turn when the assessment stays invalid after the retries', async () => {
    const invalid = { ...assessment, confidence: -1 };
    const server = await scripted([submit(invalid), submit(invalid), submit(invalid)]);

    const output = await runAgentTurn(clarifierInput(), turnDeps(server.baseUrl));

    expect(output).toMatchObject({ action: 'failed', sessionId: 'session-1' });
    expect('error' in output && output.error).toContain("the model's result was invalid 3 times");
    // Not a limit: the requester is not told this error (no stoppedBy).
    expect(output).not.toHaveProperty('stoppedBy');
  });

  it('names the limit that stopped the turn (the daily ceiling) as stoppedBy, without a model call', async () => {
    const server = await scripted([]);
    const noon = new Date('2015-11-23T12:00:00Z');

    const output = await runAgentTurn(
      clarifierInput(),
      turnDeps(server.baseUrl, {
        limits: AgentLimits.parse({ maxDailyCostUsd: 1 }),
        dailySpend: { spentOn: async () => 1_000_000, add: async () => {} },
        clock: { now: () => noon },
      }),
    );

    const reason =
      'the platform reached its spending ceiling of $1.00 of estimated model cost for today (2015-11-23, UTC); it resets at midnight UTC';
    expect(server.requests).toHaveLength(0);
    expect(output).toMatchObject({ action: 'failed', error: reason, stoppedBy: reason });
  });
});

describe('the PRD generator and the analysis agent', () => {
  it('resumes the interview session and renders every PRD section as Markdown', async () => {
    const transcripts = new MemoryTranscripts();
    const server = await scripted([
      submit({ ...assessment, confidence: 98, questions: [] }),
      (request) => {
        // The interview is in the resumed transcript: the idea, and the clarifier's submission.
        expect(JSON.stringify(request.body.messages)).toContain('I want to build an AI project manager');
        expect(systemText(request.body)).toContain('product requirements document');
        return submit(prd);
      },
    ]);
    const deps = turnDeps(server.baseUrl, { transcripts });
    await runAgentTurn(clarifierInput(), deps);

    const output = await runAgentTurn(
      {
        ...clarifierInput({ turn: 2, mode: 'continuation', state: 'prd_generator', sessionId: 'session-1' }),
        profile: 'prd_writer',
        messages: [],
      },
      deps,
    );

    expect(output).toMatchObject({ action: 'written', sessionId: 'session-1', title: 'AI project manager' });
    const headings = (output.action === 'written' ? output.markdown : '').match(/^## .+$/gm);
    expect(headings).toEqual([
      '## Problem',
      '## Goals',
      '## Non-goals',
      '## Users',
      '## User stories',
      '## Functional requirements',
      '## Non-functional requirements',
      '## Success metrics',
      '## Scope',
      '## Dependencies',
      '## Open questions',
      '## Milestones',
    ]);
  });

  it('ties every analysis finding to a PRD section, rejecting a section the PRD does not have', async () => {
    const finding = { kind: 'risk', section: 'Dependencies', finding: 'The calendar API is rate-limited.' };
    const server = await scripted([
      submit({ summary: 'Solid.', findings: [{ ...finding, section: 'Pricing' }] }),
      submit({ summary: 'Solid.', findings: [finding] }),
    ]);

    const output = await runAgentTurn(
      { ...clarifierInput({ state: 'analysis' }), profile: 'requirements_analyst', messages: [] },
      turnDeps(server.baseUrl),
    );

    expect(output).toEqual({
      action: 'analysed',
      sessionId: 'session-1',
      summary: 'Solid.',
      findings: [finding],
    });
  });

  it('lists an empty section as none rather than leaving it out', () => {
    expect(renderPrdMarkdown(prd)).toContain('## Non-goals\n\n_None._');
  });
});
