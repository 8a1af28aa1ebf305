import { stagePlan } from '../../progress/stage-plan.ts';

/** The pipeline's stages, shown above each agent turn's tasks (docs/live-progress.md). */
export const ISSUE_PIPELINE_PLAN = stagePlan('Fixing the issue', [
  { id: 'triage', title: 'Triage', profiles: ['issue_triage', 'issue_triage_answer'] },
  { id: 'analysis', title: 'Analysis', profiles: ['issue_analyst', 'issue_analyst_answer'] },
  { id: 'change', title: 'Writing the change', profiles: ['issue_writer', 'issue_writer_answer'] },
  { id: 'build', title: 'Build and tests', profiles: [] },
  { id: 'review', title: 'Review', profiles: ['issue_reviewer', 'issue_reviewer_answer'] },
  { id: 'pull_request', title: 'Commit and pull request', profiles: [] },
]);
