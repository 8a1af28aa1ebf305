import type { PipelineCase } from '../cases/pipeline.ts';
import type { Check } from '../types.ts';
import type { JudgeTransport } from './judge.ts';
import { gradeReview, type ReviewIssue } from './review.ts';

/**
 * The pipeline grader: it ended, a pull request was opened whose hidden and base tests pass on
 * its branch (the fix grader's checks, `pullRequest`), and the reviewer's issues are real (judge).
 */

export interface PipelineOutcome {
  ended: boolean;
  /** The pipeline's status when it ended, or at the time limit. */
  status?: string;
  /** What it waits for people on, when the case ended there (an eval has no one to answer). */
  waitingFor?: string | undefined;
  /** The pull request's checks: opened, hidden tests, base tests. */
  pullRequest: Check[];
  issues: readonly ReviewIssue[];
}

export async function gradePipeline(
  c: PipelineCase,
  outcome: PipelineOutcome,
  transport: JudgeTransport | undefined,
): Promise<Check[]> {
  return [
    {
      name: 'pipeline ended',
      pass: outcome.ended,
      detail: outcome.ended
        ? `status ${outcome.status ?? 'unknown'}`
        : outcome.waitingFor !== undefined
          ? `waits for people, whom an eval does not have: ${outcome.waitingFor.slice(0, 300)}`
          : `still ${outcome.status ?? 'not started'} at the time limit`,
    },
    ...outcome.pullRequest,
    ...(await gradeReview(c, outcome.issues, transport)),
  ];
}
