import { describe, expect, it } from 'vitest';
import { INCIDENT_PLAN } from '../../lambdas/workflows/incident-investigation/progress-plan.ts';
import { ISSUE_PIPELINE_PLAN } from '../../lambdas/workflows/issue-pipeline/progress-plan.ts';

describe('workflow stages as a plan', () => {
  it("marks the pipeline's stages before the reviewer done, the review in progress, the rest pending", () => {
    const plan = ISSUE_PIPELINE_PLAN({ profile: 'issue_reviewer' });
    expect(plan?.title).toBe('Fixing the issue');
    expect(plan?.steps.map((s) => [s.title, s.status])).toEqual([
      ['Triage', 'complete'],
      ['Analysis', 'complete'],
      ['Writing the change', 'complete'],
      ['Build and tests', 'complete'],
      ['Review', 'in_progress'],
      ['Commit and pull request', 'pending'],
    ]);
  });

  it("puts an answer turn in its agent's stage", () => {
    expect(ISSUE_PIPELINE_PLAN({ profile: 'issue_analyst_answer' })?.steps[1]?.status).toBe('in_progress');
  });

  it('gives a role in no stage no plan', () => {
    expect(INCIDENT_PLAN({ profile: 'bug_investigator' })).toBeUndefined();
    expect(INCIDENT_PLAN({ profile: 'incident_triager' })?.steps[0]?.status).toBe('in_progress');
  });
});
