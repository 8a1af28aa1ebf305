import { describe, expect, it } from 'vitest';
import { BUG_INVESTIGATION_PROFILES } from '../../lambdas/workflows/bug-investigation/profiles/index.ts';
import { INCIDENT_PROFILES } from '../../lambdas/workflows/incident-investigation/profiles/index.ts';
import { ISSUE_PIPELINE_PROFILES } from '../../lambdas/workflows/issue-pipeline/profiles/index.ts';
import { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import { demoModelText, useDemoModel } from '../agents/support.ts';

const demoModel = useDemoModel();

describe("the demo model's answer in a channel conversation", () => {
  it('tells people it has no real model, without naming the internal agents', async () => {
    const text = await demoModelText(demoModel(), {
      model: 'demo',
      max_tokens: 500,
      system: 'You are a helpful assistant in a Slack channel.',
      messages: [{ role: 'user', content: 'How do I rotate the API key?' }],
    });
    expect(text.startsWith(DEMO_LABEL)).toBe(true);
    expect(text).toContain('without a real model');
    const agents = [
      BUG_INVESTIGATION_PROFILES,
      INCIDENT_PROFILES,
      ISSUE_PIPELINE_PROFILES,
      REQUIREMENTS_INTERVIEW_PROFILES,
    ].flatMap((profiles) => Object.keys(profiles));
    expect(agents.length).toBeGreaterThan(0);
    for (const agent of agents) expect(text).not.toContain(agent);
  });
});
