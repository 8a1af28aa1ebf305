import type { handOff } from '../../lambdas/workflows/issue-pipeline/hand-off.ts';
import { initialState } from '../../lambdas/workflows/issue-pipeline/state.ts';

/** What a hand-off is given besides the state and the input. */
type HandOffContext = Parameters<typeof handOff>[2];

/** The issue pipeline's document for issue #7 of o/r as the pipeline starts it at `startedAtMs`. */
export const freshIssueState = (startedAtMs: number) =>
  initialState({
    issue: {
      number: 7,
      title: 'Totals',
      url: 'https://github.com/o/r/issues/7',
      type: null,
      original_body: 'b',
      labels: ['agent'],
    },
    startedAt: new Date(startedAtMs).toISOString(),
    maxAttempts: 3,
    branch: 'agents/issue-7',
  });

/** The work branch's head in these documents: the one the build built and the gate read, unless a test moves it. */
export const BRANCH_HEAD = 'h';

/** `state` after a green build of `head` (the build section's verdict and the commit it built). */
export function afterGreenBuild<S extends ReturnType<typeof freshIssueState>>(
  state: S,
  head = BRANCH_HEAD,
): S {
  state.build.completed = true;
  state.build.built_head = head;
  return state;
}

/** The hand-off's context at `nowMs`: generous limits, nothing spent, a diff of `BRANCH_HEAD` that touches nothing protected. */
export const handOffContext = (nowMs: number, over: Partial<HandOffContext> = {}): HandOffContext => ({
  limits: { maxTokens: 1_000, maxCostUsd: 1, wallClockMinutes: 60 },
  protectedGate: { verdict: 'clear', headSha: BRANCH_HEAD, files: [], reason: '', approvalText: '' },
  spend: { tokens: 0, costMicroUsd: 0 },
  nowMs,
  ...over,
});
