import type { ProfileLoaders } from '../../../agents/profile.ts';

/**
 * The issue pipeline's roles as its AgentTurn function loads them: each agent's module on the
 * first turn that runs it (its own work or its answer to another agent), with its submission's
 * schema only (submissions/), so a triage turn's cold start leaves the state document, the
 * other agents' contracts and the build's unread. The same roles as `ISSUE_PIPELINE_PROFILES`
 * (index.ts); a test checks they stay so.
 */
export const ISSUE_PIPELINE_ROLES: ProfileLoaders = {
  issue_triage: async () => (await import('./triage.ts')).issueTriage,
  issue_analyst: async () => (await import('./analyst.ts')).issueAnalyst,
  issue_writer: async () => (await import('./writer.ts')).issueWriter,
  issue_reviewer: async () => (await import('./reviewer.ts')).issueReviewer,
  issue_triage_answer: async () => (await import('./triage.ts')).issueTriageAnswer,
  issue_analyst_answer: async () => (await import('./analyst.ts')).issueAnalystAnswer,
  issue_writer_answer: async () => (await import('./writer.ts')).issueWriterAnswer,
  issue_reviewer_answer: async () => (await import('./reviewer.ts')).issueReviewerAnswer,
};
