import type { IssueState } from './state.ts';

/**
 * The rule that a pull request opens only with the head whose build passed, held at both ends
 * of the way from an approving review to the pull request: the hand-off, before the gate's
 * verdict counts (hand-off.ts), and the Committer, before it opens anything (committer.ts).
 * The build's verdict keeps the commit its checks built (`build.built_head`, build-judge.ts),
 * and sending the writer back clears it.
 */

/**
 * Why `head` (the work branch's head as the gate or the Committer read it) is not the head
 * whose build passed, or undefined when it is. The reviewer runs only after a green build, and no agent's turn between
 * them can write (an answer's tools only read: profiles/common.ts), so a head that moved was
 * written from outside the pipeline: nobody built it, and the writer's summary and the build's
 * results are not about it. The pipeline ends blocked rather than building it as another
 * attempt (the attempts are the writer's, counted where it is sent back), as the Committer does
 * for a branch that moved after the gate.
 */
export function unbuiltHead(state: IssueState, head: string): string | undefined {
  // A document written before the built head was kept has no such field (the judge writes a
  // commit or null): its pipeline was under way when the upgrade came, and its review is judged
  // as it was when it began, by the gate's head, so an upgrade ends no pipeline in flight.
  if (state.build.completed && state.build.built_head === undefined) return undefined;
  const built = state.build.completed ? state.build.built_head : null;
  if (built === null || built === undefined)
    return `No passing build is recorded for the work branch's head ${head.slice(0, 7)}, so no pull request is opened: a pull request opens only with the head whose checks passed.`;
  if (built === head) return undefined;
  return `The work branch moved after its build (built ${built.slice(0, 7)}, now ${head.slice(0, 7)}), so no pull request is opened: a pull request opens only with the head whose checks passed.`;
}
