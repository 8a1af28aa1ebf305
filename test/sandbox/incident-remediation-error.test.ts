import { describe, expect, it } from 'vitest';
import {
  APPROVER,
  confirmThenPlan,
  finished,
  INCIDENTS,
  slashInvestigate,
  stepButtons,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * A remediation run that fails as a task, after its retries (here: the skill's Lambda does not
 * exist, so the real SDK raises ResourceNotFoundException): the plan is recorded failed with
 * the reason and the thread says so, instead of a plan left `running` without a word.
 */
describe('a remediation run that fails after its retries', () => {
  const h = useIncidentHarness({
    incidentInvestigation: {
      skills: [
        {
          name: 'rollback_deployment',
          description: 'Rolls a service back',
          target: { type: 'lambda', function: 'ops-rollback-not-deployed' },
        },
      ],
    },
  });

  it('records the plan failed with the reason and shows it in the thread', async () => {
    const id = await slashInvestigate(h, 'trigger-run-error', 'checkout latency');
    confirmThenPlan(h, id, {
      steps: [
        {
          action: 'Roll payment-api back',
          skill: 'rollback_deployment',
          parameters: { service: 'payment-api' },
          rollback: 'redeploy the current version',
          risk_level: 'medium',
          requires_approval: true,
        },
      ],
      estimated_recovery_time: '15 minutes',
      monitoring: [],
    });
    const thread = await threadOf(h, id);
    const first = await stepButtons(h, thread, 1);
    await h.press(INCIDENTS, APPROVER, first.ts, first.approve.action_id, first.approve.value);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const record = await h.incidents.getRecord(id);
    expect(record?.plan).toMatchObject({
      status: 'failed',
      stopReason: expect.stringMatching(/^step 1 could not be run: ResourceNotFoundException/),
    });
    expect(record?.plan?.steps[0]).toMatchObject({
      status: 'failed',
      running: false,
      result: { ok: false, detail: expect.stringContaining('its outcome is unknown, check by hand') },
    });
    const plan = await h.eventually(
      async () =>
        (await h.messages(INCIDENTS, thread)).find((m) => m.bot && m.text.includes('*Remediation*')),
      (m) => m?.text.includes('failed: step 1 could not be run') === true,
      'the plan message saying it failed',
    );
    expect(plan?.text).toContain('ResourceNotFoundException');
  });
});
