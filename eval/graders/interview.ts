import type { InterviewCase } from '../cases/interview.ts';
import type { Check } from '../types.ts';
import { type JudgeTransport, judgedCheck } from './judge.ts';

/**
 * The interview grader: by code, it ended with a PRD and an analysis posted; by the judge, the
 * PRD covers the case's must-haves and the analysis names its risks (not judged: failed).
 */

export interface InterviewOutcome {
  ended: boolean;
  answers: number;
  /** The PRD post's full text (text and blocks), when one was posted. */
  prd?: string;
  analysis?: string;
}

export async function gradeInterview(
  c: InterviewCase,
  outcome: InterviewOutcome,
  transport: JudgeTransport | undefined,
): Promise<Check[]> {
  const checks: Check[] = [
    {
      name: 'interview ended',
      pass: outcome.ended,
      detail: outcome.ended ? `after ${outcome.answers} answers` : 'still running at the time limit',
    },
    {
      name: 'PRD posted',
      pass: outcome.prd !== undefined,
      detail: outcome.prd ? outcome.prd.slice(0, 120) : 'no PRD was posted',
    },
    {
      name: 'analysis posted',
      pass: outcome.analysis !== undefined,
      detail: outcome.analysis ? outcome.analysis.slice(0, 120) : 'no analysis was posted',
    },
  ];
  const context = `Idea: ${c.idea}\nThe requester (${c.persona.role}) said: ${[...c.persona.answers.map((a) => a.say), ...c.persona.fallback].join(' ')}`;
  for (const [name, rubric, text] of [
    ['PRD covers its must-haves (judge)', c.truth.prdMustHave, outcome.prd],
    ['analysis finds the risks (judge)', c.truth.risks, outcome.analysis],
  ] as const) {
    if (!text) continue;
    checks.push(
      await judgedCheck(
        name,
        {
          task: 'Write a PRD from a requirements interview and analyse it',
          context,
          answer: text,
          rubric: [...rubric],
        },
        transport,
      ),
    );
  }
  return checks;
}
