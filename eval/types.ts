/**
 * The eval harness's shared shapes: workflows, a case's common fields, what grading returns,
 * and one case's result as the report keeps it.
 */

export const WORKFLOWS = [
  'incident_investigation',
  'bug_investigation',
  'issue_pipeline',
  'requirements_interview',
  'channel_conversations',
] as const;
export type Workflow = (typeof WORKFLOWS)[number];

/** What every case has. Its `truth` is read by graders only: no emulator serves it. */
export interface CaseBase {
  /** Unique across all cases, e.g. `incident/deploy-regression`. */
  id: string;
  workflow: Workflow;
  title: string;
}

/** One graded property of an outcome. */
export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

/** A grader's verdict: the case passes when every check passes. */
export interface Verdict {
  pass: boolean;
  /** The first failed check's detail, or a line saying what passed. */
  reason: string;
  checks: Check[];
}

export function verdictOf(checks: Check[]): Verdict {
  const failed = checks.find((c) => !c.pass);
  return {
    pass: failed === undefined && checks.length > 0,
    reason: failed
      ? `${failed.name}: ${failed.detail}`
      : checks.length === 0
        ? 'nothing was checked'
        : `all ${checks.length} checks passed`,
    checks,
  };
}

/** Model usage seen by the harness's model proxy during one case. */
export interface Usage {
  modelCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const NO_USAGE: Usage = {
  modelCalls: 0,
  toolCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

/** One run of one case. */
export interface CaseResult {
  id: string;
  workflow: Workflow;
  title: string;
  iteration: number;
  pass: boolean;
  reason: string;
  checks: Check[];
  /** Set when the case crashed or timed out (it then fails). */
  error?: string;
  /** Milliseconds from the case's trigger to its first useful answer (findings, conclusion...). */
  firstAnswerMs?: number;
  /** Milliseconds from the trigger to the end of the conversation (or the case's end). */
  endMs: number;
  /**
   * Milliseconds from the failure of the case's execution (it failed, was stopped or timed
   * out, or a state caught a failure) to the moment its driver stopped waiting; absent when no
   * execution of the case failed.
   */
  afterFailureMs?: number;
  usage: Usage;
  /** The conversations' ledger cost in USD (absent when none was recorded). */
  costUsd?: number;
  /** The harness's own time: starting the sandbox and seeding, and grading. */
  overheadMs: { setup: number; grading: number };
}
