import { describe, expect, it } from 'vitest';
import {
  APPROVER,
  BYSTANDER,
  confirmThenPlan,
  DEMO_SKILLS,
  finished,
  INCIDENTS,
  slashInvestigate,
  stepButtons,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * Remediation in the sandbox: each step that changes something waits for an authorized press
 * of its Approve button (the kernel's approval wait), runs through its skill (the labelled demo
 * skill), and is rolled back when it fails; a rejection stops the plan with its reason.
 */

const step = (action: string, parameters: Record<string, string>) => ({
  action,
  skill: 'rollback_deployment',
  parameters,
  rollback: 'redeploy the current version',
  risk_level: 'medium',
  requires_approval: true,
});

describe('remediation with approvals', () => {
  const h = useIncidentHarness({ incidentInvestigation: DEMO_SKILLS });

  it('runs an approved step, ignores an unauthorized press, and stops the plan at a rejection with its reason', async () => {
    const id = await slashInvestigate(h, 'trigger-approvals', 'checkout latency');
    confirmThenPlan(h, id, {
      steps: [
        step('Roll payment-api back', { service: 'payment-api' }),
        {
          action: 'Tell the payment provider',
          command: 'open a ticket',
          risk_level: 'low',
          requires_approval: false,
        },
        step('Roll checkout back too', { service: 'checkout' }),
      ],
      estimated_recovery_time: '15 minutes',
      monitoring: ['provider timeouts per minute'],
    });
    const thread = await threadOf(h, id);

    const first = await stepButtons(h, thread, 1);
    // Someone who may not approve: told so, nothing decided, nothing run.
    await h.press(INCIDENTS, BYSTANDER, first.ts, first.approve.action_id, first.approve.value);
    await h.eventually(
      async () => h.sandbox.slack.workspace.ephemerals().filter((e) => e.user === BYSTANDER),
      (list) => list.length === 1,
      'an ephemeral to the bystander',
    );
    await h.sandbox.idle();
    expect((await h.store.getConversation(id, { consistent: true }))?.decisions ?? []).toEqual([]);
    expect((await h.incidents.getRecord(id))?.plan?.steps[0]?.status).toBe('awaiting_approval');

    await h.press(INCIDENTS, APPROVER, first.ts, first.approve.action_id, first.approve.value);
    const third = await stepButtons(h, thread, 3);
    const afterFirst = await h.incidents.getRecord(id);
    expect(afterFirst?.plan?.steps[0]).toMatchObject({
      status: 'succeeded',
      approval: { decision: 'approve', by: APPROVER },
      result: {
        ok: true,
        detail: expect.stringContaining('[demo skill] rollback_deployment applied with service=payment-api'),
      },
    });
    expect(afterFirst?.plan?.steps[1]?.status).toBe('manual');

    await h.press(INCIDENTS, APPROVER, third.ts, third.reject.action_id, third.reject.value);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');
    const record = await h.incidents.getRecord(id);
    expect(record?.plan).toMatchObject({
      status: 'stopped',
      stopReason: expect.stringMatching(new RegExp(`^step 3 was rejected by <@${APPROVER}>`)),
    });
    expect(record?.plan?.steps[2]).toMatchObject({ status: 'rejected', approval: { decision: 'reject' } });
    expect(record?.plan?.steps[2]?.result).toBeUndefined();
    expect(record?.conclusion).toMatchObject({ outcome: 'root_cause', hypothesisId: 'H1' });
    expect(record?.metrics).toMatchObject({ approvalsRequested: 2, approvalsGranted: 1 });
    const plan = (await h.messages(INCIDENTS, thread)).find((m) => m.bot && m.text.includes('*Remediation*'));
    expect(plan?.text).toContain('stopped: step 3 was rejected');
  });

  it('rolls a failed step back and records both results', async () => {
    const id = await slashInvestigate(h, 'trigger-rollback', 'checkout latency');
    confirmThenPlan(h, id, {
      steps: [step('Roll payment-api back', { service: 'payment-api', simulate: 'failure' })],
      estimated_recovery_time: '15 minutes',
      monitoring: [],
    });
    const thread = await threadOf(h, id);
    const first = await stepButtons(h, thread, 1);
    await h.press(INCIDENTS, APPROVER, first.ts, first.approve.action_id, first.approve.value);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const record = await h.incidents.getRecord(id);
    expect(record?.plan?.steps[0]).toMatchObject({
      status: 'failed',
      result: { ok: false, detail: expect.stringContaining('failed as asked') },
      rollbackResult: { ok: true, detail: expect.stringContaining('restore_deployment rolled back') },
    });
    expect(record?.plan?.stopReason).toMatch(/^step 1 failed .*; rollback succeeded/);
  });
});
