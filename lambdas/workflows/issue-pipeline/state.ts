import * as z from 'zod';
import {
  AnalysisFile,
  ModelAgent,
  Observation,
  ReviewIssue,
  TestRequirement,
  text,
  WriterChange,
} from './submissions/parts.ts';

/** The model agents' names, where the document's readers have always found them. */
export { ModelAgent };

/**
 * The shared state document, as a zod schema: the one record the pipeline's agents hand
 * over to each other. It lives in DynamoDB on the conversation's record (`issueState`); the state
 * machine passes ids and small facts, and every hand-off validates the whole document before
 * it is written (hand-off.ts). Field names and enums are the design's.
 */

export const AgentName = z.enum(['triage', 'analyst', 'writer', 'build', 'reviewer', 'committer']);
export type AgentName = z.infer<typeof AgentName>;

export const PipelineStatus = z.enum(['in_progress', 'completed', 'failed', 'blocked']);
export type PipelineStatus = z.infer<typeof PipelineStatus>;

export const IssueSection = z.object({
  number: z.number().int().positive(),
  title: text(300),
  url: z.string(),
  type: z.enum(['BUG_FIX', 'NEW_FEATURE', 'REFACTOR_STYLE']).nullable(),
  original_body: text(20_000),
  labels: z.array(z.string()),
});

export const PipelineSection = z.object({
  started_at: z.string(),
  current_agent: AgentName,
  attempt: z.number().int().min(0),
  max_attempts: z.number().int().positive(),
  status: PipelineStatus,
  blocked_reason: text(2_000).nullable(),
  failure_reason: text(2_000).nullable(),
});

export const TriageSection = z.object({
  completed: z.boolean(),
  scope: z.enum(['SMALL', 'MEDIUM', 'LARGE']).nullable(),
  complexity: z.enum(['simple', 'moderate', 'complex']).nullable(),
  should_proceed: z.boolean(),
  rejection_reason: text(2_000).nullable(),
});

export const AnalysisSection = z.object({
  completed: z.boolean(),
  files: z.array(AnalysisFile).max(50),
  patterns: z.array(text(500)).max(30),
  test_requirement: TestRequirement.nullable(),
  must_do: z.array(text(500)).max(30),
  must_not_do: z.array(text(500)).max(30),
  brief: text(12_000),
});

export const WriterSection = z.object({
  completed: z.boolean(),
  attempt: z.number().int().min(0),
  changes: z.array(WriterChange).max(50),
  test_written: z.boolean(),
  test_file: text(500).nullable(),
  summary: text(4_000),
  previous_feedback: text(12_000).nullable(),
});

export const CommandRun = z.object({
  command: text(200),
  exit_code: z.number().int().nullable(),
  output: text(2_000),
  /** An addition: the check fails on the base commit too, so the change is not blamed for it. */
  pre_existing: z.boolean().default(false),
  /** An addition: which check this is (install, test, lint, typecheck). */
  check: text(50).optional(),
  /** An addition: where the command came from ("from the base commit abc1234", "from the configuration"). */
  source: text(200).optional(),
  /** An addition: how a failure was matched to the base's, per test or as a whole check (build-judge.ts). */
  judged: text(600).optional(),
  /**
   * An addition: excused (`pre_existing`) only on the change's own test report, which the code
   * under test writes; the pull request then waits for a person (report-excuse.ts).
   */
  on_own_report: z.boolean().optional(),
  /**
   * An addition: excused as a whole check although its runner reports per test, because the
   * base commit's run left no per-test report; the pull request then waits for a person too.
   */
  base_unreported: z.boolean().optional(),
});

export const BuildSection = z.object({
  completed: z.boolean(),
  tests_passed: z.boolean(),
  lint_passed: z.boolean(),
  type_check_passed: z.boolean(),
  errors: z.array(text(2_000)).max(20),
  commands_run: z.array(CommandRun).max(10),
  /**
   * An addition: the work branch's head commit these checks built ("Define checks" read it; every
   * checks build ran that commit), kept with the verdict and cleared when the writer is sent
   * back. The pipeline goes past an approving review only while the branch is still there, and
   * the Committer opens the pull request only from it: the head a pull request opens with is the
   * head whose build passed (hand-off.ts, committer.ts).
   */
  built_head: z.string().nullable().optional(),
});

export const ReviewSection = z.object({
  completed: z.boolean(),
  verdict: z.enum(['APPROVED', 'REJECTED', 'NEEDS_INFO']).nullable(),
  findings: z.object({ good: z.array(text(500)).max(20), issues: z.array(ReviewIssue).max(30) }),
  feedback_for_writer: text(12_000).nullable(),
});

export const CommitSection = z.object({
  completed: z.boolean(),
  hash: z.string().nullable(),
  message: text(4_000).nullable(),
  branch: z.string(),
  pushed: z.boolean(),
  pr_created: z.boolean(),
  pr_url: z.string().nullable(),
  issue_closed: z.boolean(),
  /**
   * An addition: the work branch's head commit the protected-paths gate read (and an approver,
   * if one was asked, saw). The Committer opens the pull request only while the branch is there.
   */
  checked_head: z.string().nullable().optional(),
});

export const Question = z.object({
  from: ModelAgent,
  /** Another agent, or `people`. */
  to: z.union([ModelAgent, z.literal('people')]),
  question: text(2_000),
  answered: z.boolean(),
  answer: text(4_000).nullable(),
});
export type Question = z.infer<typeof Question>;

export const Escalation = z.object({
  agent: ModelAgent,
  reason: text(2_000),
  requires_human: z.boolean(),
  resolved: z.boolean(),
  /** An addition: who decided it (a Slack user id, from the approval's press) and how, for the pull request. */
  decided: z.object({ by: text(50), decision: text(50), at: text(50) }).optional(),
});
export type Escalation = z.infer<typeof Escalation>;

export const IssueState = z.object({
  version: z.literal('1.0'),
  issue: IssueSection,
  pipeline: PipelineSection,
  triage: TriageSection,
  analysis: AnalysisSection,
  writer: WriterSection,
  build: BuildSection,
  review: ReviewSection,
  commit: CommitSection,
  communication: z.object({ questions: z.array(Question).max(30), escalations: z.array(Escalation).max(30) }),
  learnings: z.object({
    session_id: z.string(),
    observations: z.array(Observation).max(100),
    outcome: text(2_000).nullable(),
  }),
});
export type IssueState = z.infer<typeof IssueState>;

/** The document a pipeline starts with: the issue, and every agent's section not yet done. */
export function initialState(input: {
  issue: z.infer<typeof IssueSection>;
  startedAt: string;
  maxAttempts: number;
  branch: string;
}): IssueState {
  return IssueState.parse({
    version: '1.0',
    issue: input.issue,
    pipeline: {
      started_at: input.startedAt,
      current_agent: 'triage',
      attempt: 0,
      max_attempts: input.maxAttempts,
      status: 'in_progress',
      blocked_reason: null,
      failure_reason: null,
    },
    triage: { completed: false, scope: null, complexity: null, should_proceed: true, rejection_reason: null },
    analysis: {
      completed: false,
      files: [],
      patterns: [],
      test_requirement: null,
      must_do: [],
      must_not_do: [],
      brief: '',
    },
    writer: {
      completed: false,
      attempt: 0,
      changes: [],
      test_written: false,
      test_file: null,
      summary: '',
      previous_feedback: null,
    },
    build: {
      completed: false,
      tests_passed: false,
      lint_passed: false,
      type_check_passed: false,
      errors: [],
      commands_run: [],
    },
    review: {
      completed: false,
      verdict: null,
      findings: { good: [], issues: [] },
      feedback_for_writer: null,
    },
    commit: {
      completed: false,
      hash: null,
      message: null,
      branch: input.branch,
      pushed: false,
      pr_created: false,
      pr_url: null,
      issue_closed: false,
    },
    communication: { questions: [], escalations: [] },
    learnings: {
      session_id: `${input.startedAt.slice(0, 10)}-issue-${input.issue.number}`,
      observations: [],
      outcome: null,
    },
  });
}
