import { describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { PRD_SECTIONS } from '../../lambdas/workflows/requirements-interview/profiles/prd-writer.ts';
import { CLARIFIER_SYSTEM_PROMPT } from '../../lambdas/workflows/requirements-interview/profiles/requirements-clarifier.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import { DEMO_QUESTIONS } from '../../statemachines/requirements-interview/demo.ts';
import { clarifierInput, drained, MemoryTranscripts, turnDeps, useDemoModel } from './support.ts';

/**
 * The offline demo model as the requirements interview's three agents, through the
 * real agent turn: every result it submits passes the profile's schema and check, or the turn
 * would come back `failed`.
 */

const demoModel = useDemoModel();

const IDEA = '/prd I want to build an AI project manager';
const ANSWERS = [
  'It should help with task scheduling and team management',
  'For software development teams, 10-50 people',
];

/** The clarification turns of an interview: the idea, then one turn per answer, in one session. */
async function interview(answers: string[], confidenceThreshold = 95) {
  const deps = turnDeps(demoModel(), { transcripts: new MemoryTranscripts() });
  const first = { messages: [drained('requester', 'U_REQ', IDEA)], confidenceThreshold };
  const outputs = [await runAgentTurn(clarifierInput(first), deps)];
  for (const [index, answer] of answers.entries()) {
    const turn = { turn: index + 2, mode: 'continuation', sessionId: 'session-1' } as const;
    const messages = [drained('requester', 'U_REQ', answer)];
    outputs.push(await runAgentTurn(clarifierInput({ ...first, ...turn, messages }), deps));
  }
  const resumed = (turn: number, state: 'prd_generator' | 'analysis') =>
    clarifierInput({ turn, mode: 'continuation', state, sessionId: 'session-1', messages: [] });
  const next = answers.length + 2;
  return {
    outputs,
    writePrd: () => runAgentTurn({ ...resumed(next, 'prd_generator'), profile: 'prd_writer' }, deps),
    analyse: () => runAgentTurn({ ...resumed(next + 1, 'analysis'), profile: 'requirements_analyst' }, deps),
  };
}

const labelled = (text: string) => text.startsWith(`${DEMO_LABEL} `);

describe('the offline demo model as the requirements clarifier', () => {
  it("rises from 50 to 75 to 98 with the requester's answers, asking the questions still open, all labelled", async () => {
    const { outputs } = await interview(ANSWERS);

    expect(outputs.map((output) => output.action === 'assessed' && output.confidence)).toEqual([50, 75, 98]);
    expect(outputs.map((output) => (output.action === 'assessed' ? output.questions.length : -1))).toEqual([
      3, 2, 0,
    ]);
    const [first, second] = outputs;
    expect(first?.action === 'assessed' && first.questions).toEqual(
      DEMO_QUESTIONS.map((question) => `${DEMO_LABEL} ${question}`),
    );
    expect(second?.action === 'assessed' && second.understanding).toContain(ANSWERS[0]);
    for (const output of outputs) {
      if (output.action !== 'assessed') throw new Error(`the turn ended ${output.action}`);
      const texts = [
        output.confidenceReason,
        output.understanding,
        ...output.questions,
        ...output.openUnknowns,
      ];
      expect(texts.every(labelled)).toBe(true);
    }
  });

  it('keeps asking one question while a higher threshold is not reached', async () => {
    const { outputs } = await interview(ANSWERS, 99);

    expect(outputs.at(-1)).toMatchObject({
      action: 'assessed',
      confidence: 98,
      questions: [`${DEMO_LABEL} ${DEMO_QUESTIONS[2]}`],
    });
  });
});

describe('the offline demo model as the PRD writer and the analyst', () => {
  it('writes a labelled PRD with every section, from the idea and the answers of the interview', async () => {
    const { writePrd } = await interview(ANSWERS);

    const prd = await writePrd();

    if (prd.action !== 'written') throw new Error(`the turn ended ${prd.action}`);
    expect(prd.title).toBe(`${DEMO_LABEL} I want to build an AI project manager`);
    expect(prd.markdown.match(/^## .+$/gm)).toEqual(PRD_SECTIONS.map((section) => `## ${section}`));
    for (const answer of ANSWERS) expect(prd.markdown).toContain(answer);
    const entries = prd.markdown.match(/^(?:- |\d+\. )(.*)$/gm) ?? [];
    expect(entries.length).toBeGreaterThan(PRD_SECTIONS.length);
    expect(entries.every((entry) => entry.replace(/^(?:- |\d+\. )/, '').startsWith(DEMO_LABEL))).toBe(true);
  });

  it('analyses the PRD of the session with labelled findings, each tied to a PRD section', async () => {
    const { writePrd, analyse } = await interview(ANSWERS);
    await writePrd();

    const analysis = await analyse();

    if (analysis.action !== 'analysed') throw new Error(`the turn ended ${analysis.action}`);
    expect(analysis.summary).toContain('I want to build an AI project manager');
    expect(analysis.findings.map((finding) => `${finding.kind}:${finding.section}`)).toEqual([
      'gap:Success metrics',
      'risk:Non-functional requirements',
      'recommendation:Open questions',
    ]);
    expect([analysis.summary, ...analysis.findings.map((finding) => finding.finding)].every(labelled)).toBe(
      true,
    );
  });
});

describe('the offline demo model with a request for no agent it plays', () => {
  it('answers in labelled plain text', async () => {
    const response = await fetch(`${demoModel()}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-test',
        max_tokens: 100,
        system: `${CLARIFIER_SYSTEM_PROMPT} (changed)`,
        messages: [{ role: 'user', content: 'Hello?' }],
      }),
    });

    expect(response.status).toBe(200);
    const message = (await response.json()) as {
      content: { type: string; text: string }[];
      stop_reason: string;
    };
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content).toHaveLength(1);
    expect(message.content[0]?.text.startsWith(DEMO_LABEL)).toBe(true);
  });
});
