import { describe, expect, it } from 'vitest';
import { ALL_CASES } from '../../eval/cases/index.ts';
import { scriptedAnswers } from '../../eval/scripted/index.ts';

/**
 * Every case's graders against scripted answers, with no model: each true answer passes, each
 * plausible wrong answer fails, and every case has at least two wrong answers. A grader that
 * gets softer (or a truth that stops telling right from wrong) fails here.
 */

describe('every case tells its true answer from wrong ones', () => {
  it('covers all 47 cases', () => {
    expect(ALL_CASES).toHaveLength(47);
  });

  it.each(ALL_CASES.map((c) => [c.id, c] as const))('%s', async (_, c) => {
    const answers = await scriptedAnswers(c);
    expect(answers.filter((a) => a.right).length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => !a.right).length).toBeGreaterThanOrEqual(2);
    const wrongly: string[] = [];
    for (const a of answers) {
      const verdict = await a.grade();
      if (verdict.pass !== a.right)
        wrongly.push(`${a.label}: ${verdict.pass ? 'passed' : 'failed'} (${verdict.reason})`);
    }
    expect(wrongly).toEqual([]);
  });
});
