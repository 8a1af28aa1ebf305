import { describe, expect, it } from 'vitest';
import { ALL_CASES, type EvalCase } from '../../eval/cases/index.ts';
import { bugConfig } from '../../eval/drivers/bug.ts';
import { channelConfig } from '../../eval/drivers/channel.ts';
import { slackTriggerId } from '../../eval/drivers/ids.ts';
import { incidentConfig } from '../../eval/drivers/incident.ts';
import { interviewConfig } from '../../eval/drivers/interview.ts';
import { pipelineConfig } from '../../eval/drivers/pipeline.ts';
import { leaksIn } from '../../eval/leaks.ts';
import { plantedFiles } from '../../eval/repos/repos.ts';
import { scriptedAnswers } from '../../eval/scripted/index.ts';
import { scenarioEvidence } from '../../eval/scripted/telemetry-evidence.ts';

/**
 * Every case's graders against scripted answers, with no model: each true answer passes, each
 * plausible wrong answer fails, and every case has at least two wrong answers. A grader that
 * gets softer (or a truth that stops telling right from wrong) fails here.
 */

describe('every case tells its true answer from wrong ones', () => {
  it('covers all 47 cases', () => {
    expect(ALL_CASES).toHaveLength(47);
  });

  it.each(ALL_CASES.map((c) => [c.id, c] as const))('%s', async (_, c) => {
    const answers = await scriptedAnswers(c);
    expect(answers.filter((a) => a.right).length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => !a.right).length).toBeGreaterThanOrEqual(2);
    const wrongly: string[] = [];
    for (const a of answers) {
      const verdict = await a.grade();
      if (verdict.pass !== a.right)
        wrongly.push(`${a.label}: ${verdict.pass ? 'passed' : 'failed'} (${verdict.reason})`);
    }
    expect(wrongly).toEqual([]);
  });
});

/** Everything the harness puts in front of the agents for a case, but the model's own words. */
async function shownToAgents(c: EvalCase): Promise<string> {
  switch (c.workflow) {
    case 'incident_investigation': {
      const ev = scenarioEvidence(c.scenario);
      return JSON.stringify([c.request, slackTriggerId(c.id), incidentConfig(), ev.ledger, ev.text]);
    }
    case 'bug_investigation':
      return JSON.stringify([c.report, c.details, bugConfig(c), (await plantedFiles(c)).files]);
    case 'issue_pipeline':
      return JSON.stringify([c.issue, pipelineConfig(c), (await plantedFiles(c.bug)).files]);
    case 'requirements_interview':
      return JSON.stringify([c.idea, c.persona, slackTriggerId(c.id), interviewConfig()]);
    case 'channel_conversations':
      return JSON.stringify([c.steps.map((s) => [s.user, s.text]), channelConfig()]);
  }
}

describe('nothing the harness shows the agents names the case or says it is an eval', () => {
  it.each(ALL_CASES.map((c) => [c.id, c] as const))('%s', async (_, c) => {
    expect(leaksIn(c, await shownToAgents(c))).toEqual([]);
  });
});
