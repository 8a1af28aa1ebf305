import type {
  AnalysisTurnOutput,
  ClarificationTurnOutput,
  PrdTurnOutput,
  RequirementsTurnState,
} from '../../lambdas/workflows/requirements-interview/contract.ts';
import type { CaughtError, KernelState } from '../kernel-state.ts';
import { stateOf } from '../result-paths.ts';
import type { PostedMessage } from '../slack-post.ts';

/**
 * The requirements interview's state as a type (described field by field in states.ts): every
 * JSONPath of its graph comes from `REQUIREMENTS_STATE`, so a misspelt field fails tsc.
 */
export type RequirementsState = KernelState & {
  readonly thread: PostedMessage;
  /** The state the next agent turn runs in. */
  readonly currentAgent: RequirementsTurnState;
  /** What the clarification turns are told (nothing). */
  readonly notes: readonly string[];
  readonly clarificationTurns: number;
  readonly clarification: ClarificationTurnOutput | Record<never, never>;
  readonly prd?: PrdTurnOutput;
  readonly analysis?: AnalysisTurnOutput;
  /** What the PRD generator is told. */
  readonly prdNotes: { readonly notes: readonly string[] };
  /** Why the failure could not be told (the conversation fails all the same). */
  readonly tellFailureError?: CaughtError;
};

export const REQUIREMENTS_STATE = stateOf<RequirementsState>();
