import * as z from 'zod';
import { BuildResults, ReadBuildResultsInput } from '../../builds/contract.ts';
import { ModelAgent } from './submissions/parts.ts';
import { IssueTurnOutput } from './submissions/turn.ts';

/**
 * The issue pipeline's contracts: what each agent submits (the input of its final tool, one
 * module each under submissions/, so an agent turn loads its own), what an agent turn returns
 * to the state machine, and the inputs and outputs of the pipeline's own task Lambdas. The
 * state machine (statemachines/issue-pipeline) passes ids and small facts; the document stays
 * in DynamoDB.
 */

export { AnalysisSubmission } from './submissions/analysis.ts';
export { ChangesSubmission } from './submissions/changes.ts';
export { ReviewSubmission } from './submissions/review.ts';
export { TriageSubmission } from './submissions/triage.ts';
export { AnswerSubmission, IssueTurnOutput } from './submissions/turn.ts';

/** The stages, in the pipeline's order (`build_base`: the base commit's build, to compare). */
const STAGES = ['triage', 'analyst', 'writer', 'build', 'build_base', 'reviewer'] as const;
/** Then the approval and the commit. */
const LAST_STAGES = ['approval', 'committer'] as const;
/** An agent's question: to another agent, or to people. */
const QUESTIONS = ['ask_agent', 'ask_people'] as const;
/** The end without a pull request. */
const ENDS = ['stopped', 'blocked', 'failed'] as const;
/** Where the pipeline goes next, decided in code at every hand-off. */
export const NextStage = z.enum([...STAGES, ...LAST_STAGES, ...QUESTIONS, ...ENDS]);
export type NextStage = z.infer<typeof NextStage>;

/** The hand-off's output (`$.handOff`): small facts only. */
export const HandOff = z.object({
  next: NextStage,
  attempt: z.number().int().min(0),
  /** What the next agent is told (capped). */
  notes: z.array(z.string()),
  /** The agent that asked a question, to resume with the answer. */
  asker: ModelAgent.optional(),
  /** The agent asked, for `ask_agent`. */
  asked: ModelAgent.optional(),
  /** Why the pipeline ended (`stopped`, `blocked`, `failed`), or what people are asked. */
  reason: z.string().max(2_000).optional(),
  /** For `ask_people`: nobody who may answer did yet; wait again without asking again. */
  waitAgain: z.boolean().optional(),
});
export type HandOff = z.infer<typeof HandOff>;

export const StartInput = z.object({
  conversationId: z.string().min(1),
  /** Who started it (the labeller `github:<login>`, or the Slack user who ran `/fix`): checked before any work. */
  ownerId: z.string().min(1).optional(),
  origin: z.object({
    kind: z.literal('github'),
    repository: z.string(),
    number: z.number().int().positive(),
  }),
});
export type StartInput = z.infer<typeof StartInput>;

export const StartOutput = z.object({
  number: z.number().int().positive(),
  url: z.string(),
  branch: z.string(),
  baseSha: z.string(),
  handOff: HandOff,
  /** One session per agent, resumed across its turns. */
  sessions: z.record(ModelAgent, z.string()),
});
export type StartOutput = z.infer<typeof StartOutput>;

export const HandOffInput = z.object({
  conversationId: z.string().min(1),
  /** The agent whose turn just ended, and how it was run (its own turn, or an answer to a question). */
  agent: ModelAgent,
  mode: z.enum(['work', 'answer', 'people', 'approval']),
  /** For `approval`: the approval wait's result (lambdas/kernel/approval-wait.ts). */
  approval: z
    .object({
      outcome: z.enum(['decided', 'expired']),
      decision: z.string().optional(),
      by: z.string().optional(),
      /** When the Router took the press (ISO 8601). */
      at: z.string().optional(),
    })
    .optional(),
  turn: IssueTurnOutput.optional(),
  /** For `people`: the messages the wake drained (answers from Slack or GitHub). */
  messages: z
    .array(
      z.object({
        channel: z.string(),
        senderType: z.string(),
        senderId: z.string(),
        text: z.string(),
        /** The GitHub comment the text is a version of (`github-comment:<id>`). */
        sourceId: z.string().optional(),
      }),
    )
    .optional(),
  /** For `people`: the wait timed out. */
  timedOut: z.boolean().optional(),
  /** The previous hand-off (who asked whom). */
  previous: HandOff.optional(),
});
export type HandOffInput = z.infer<typeof HandOffInput>;

export const JudgeBuildInput = z.object({
  conversationId: z.string().min(1),
  attempt: z.number().int().positive(),
  /** `branch`: the change's build; `base`: the base commit's, run once per base commit. */
  kind: z.enum(['branch', 'base']),
  baseSha: z.string().min(1),
  /**
   * The commit the checks built ("Define checks"' `headSha`, each build's source version): the
   * work branch's head for `branch`, the base commit for `base`. Kept with the verdict: the
   * pipeline goes past the reviewer only while the branch is still there (hand-off.ts).
   */
  headSha: z.string().min(1),
  checks: ReadBuildResultsInput.shape.checks,
  builds: ReadBuildResultsInput.shape.builds,
});
export type JudgeBuildInput = z.infer<typeof JudgeBuildInput>;

/** A base commit's build results, cached per commit (the repository may have a red test of its own). */
export const BaselineRecord = z.object({ sha: z.string(), results: BuildResults });
export type BaselineRecord = z.infer<typeof BaselineRecord>;

export const CommitInput = z.object({ conversationId: z.string().min(1), branch: z.string().min(1) });
export type CommitInput = z.infer<typeof CommitInput>;

export const CommitOutput = z.object({
  opened: z.boolean(),
  url: z.string().optional(),
  reason: z.string().optional(),
});
export type CommitOutput = z.infer<typeof CommitOutput>;

export const ProgressInput = z.object({
  conversationId: z.string().min(1),
  /** The configured channel the pipeline's message lives in. */
  channel: z.string().min(1),
  /** Something to say besides the summary: posted in the pipeline's thread and as an issue comment. */
  say: z.string().max(4_000).optional(),
  /**
   * The error that stopped the pipeline (a Catch's `$.failure`): said in the pipeline's thread
   * and on the issue, with the issue's link, instead of `say`.
   */
  failure: z.looseObject({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});
export type ProgressInput = z.infer<typeof ProgressInput>;

export const ProgressOutput = z.object({ channel: z.string(), threadTs: z.string() });
export type ProgressOutput = z.infer<typeof ProgressOutput>;
