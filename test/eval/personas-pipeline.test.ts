import { describe, expect, it } from 'vitest';
import { INTERVIEW_CASES } from '../../eval/cases/interview.ts';
import { PIPELINE_CASES } from '../../eval/cases/pipeline.ts';
import { personaAnswer } from '../../eval/drivers/interview.ts';
import { waitsForPeople } from '../../eval/drivers/pipeline.ts';
import { gradePipeline } from '../../eval/graders/pipeline.ts';
import { freshIssueState } from '../support/issue-state.ts';

describe('the interview personas', () => {
  const lunch = INTERVIEW_CASES.find((c) => c.id === 'interview/team-lunch-planner');
  if (!lunch) throw new Error('no lunch persona');

  it('answer the question asked with their matching answer, each once, then their fallbacks in turn', () => {
    const used = new Set<number>();
    const fallbacks = { next: 0 };
    expect(personaAnswer(lunch, '1. Who will use it, and how big are the teams?', used, fallbacks)).toContain(
      '5 to 20',
    );
    expect(personaAnswer(lunch, 'Any dietary restrictions?', used, fallbacks)).toContain('nut allergies');
    expect(personaAnswer(lunch, 'And who are the users again?', used, fallbacks)).toBe(
      lunch.persona.fallback[0],
    );
    expect(personaAnswer(lunch, 'Anything else?', used, fallbacks)).toBe(lunch.persona.fallback[1]);
    expect(personaAnswer(lunch, 'More?', used, fallbacks)).toBe(lunch.persona.fallback[0]);
  });

  it('are six, each with a PRD rubric and risks to find', () => {
    expect(INTERVIEW_CASES).toHaveLength(6);
    for (const c of INTERVIEW_CASES) {
      expect(c.truth.prdMustHave.length).toBeGreaterThan(0);
      expect(c.truth.risks.length).toBeGreaterThan(0);
      for (const a of c.persona.answers) expect(() => new RegExp(a.when, 'i')).not.toThrow();
    }
  });
});

describe('the pipeline cases', () => {
  it('are six issues over both repositories, each reusing a bug case’s plant and hidden tests', () => {
    expect(PIPELINE_CASES).toHaveLength(6);
    expect(new Set(PIPELINE_CASES.map((c) => c.bug.repo))).toEqual(new Set(['webshop', 'invoicing']));
    for (const c of PIPELINE_CASES) expect(Object.keys(c.bug.truth.hiddenTests)).toHaveLength(1);
  });
});

describe('a pipeline case that waits for people', () => {
  it('ends at an open question to people or an approval a person must give, and says so in its first check', async () => {
    const state = freshIssueState(Date.UTC(2001, 0, 1));
    expect(waitsForPeople(state)).toBeUndefined();
    state.communication.questions.push({
      from: 'writer',
      to: 'people',
      question: 'Should the threshold include VAT?',
      answered: false,
      answer: null,
    });
    expect(waitsForPeople(state)).toBe('the writer asked people: Should the threshold include VAT?');
    const answered = freshIssueState(Date.UTC(2001, 0, 1));
    answered.communication.escalations.push({
      agent: 'reviewer',
      reason: 'The change touches protected paths: `package.json`',
      requires_human: true,
      resolved: false,
    });
    expect(waitsForPeople(answered)).toBe(
      'the reviewer waits for a person: The change touches protected paths: `package.json`',
    );
    const [first] = await gradePipeline(
      PIPELINE_CASES[0] as (typeof PIPELINE_CASES)[number],
      { ended: false, status: 'in_progress', waitingFor: waitsForPeople(state), pullRequest: [], issues: [] },
      undefined,
    );
    expect(first).toEqual({
      name: 'pipeline ended',
      pass: false,
      detail:
        'waits for people, whom an eval does not have: the writer asked people: Should the threshold include VAT?',
    });
  });
});
