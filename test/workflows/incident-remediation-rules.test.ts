import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../lambdas/kernel/model.ts';
import type { RemediationConfig } from '../../lambdas/workflows/incident-investigation/config.ts';
import { ApprovalRequiredError } from '../../lambdas/workflows/incident-investigation/errors.ts';
import { renderPhase } from '../../lambdas/workflows/incident-investigation/progress.ts';
import type {
  IncidentRecord,
  IncidentStore,
  StoredStep,
} from '../../lambdas/workflows/incident-investigation/record.ts';
import {
  failStep,
  nextStep,
  recordPlan,
  runStep,
  type SkillRunner,
} from '../../lambdas/workflows/incident-investigation/remediation.ts';

/** Remediation's rules in code: what needs an approval, and that nothing needing one runs without it. */

const CONFIG: RemediationConfig = {
  skills: [
    { name: 'restart', description: 'restart', target: { type: 'demo' }, mutating: true },
    { name: 'read_status', description: 'reads', target: { type: 'demo' }, mutating: false },
  ],
  runbooks: [
    {
      name: 'provider',
      title: 'Provider timeouts',
      matches: ['Provider Timeout'],
      steps: ['roll back'],
      skills: [],
    },
  ],
};

const stepOf = (over: Record<string, unknown>) => ({
  action: 'do it',
  risk_level: 'low' as const,
  requires_approval: false,
  ...over,
});

/** The plan recordPlan stores for the agent's `steps`, in an incident whose conclusion names `rootCause`. */
async function recordedPlan(steps: ReturnType<typeof stepOf>[], rootCause = 'not known') {
  const store = storeWith([]);
  delete store.record.plan;
  store.record.conclusion = { rootCause } as IncidentRecord['conclusion'];
  await recordPlan(
    { conversationId: 'inc-1', result: { steps, estimated_recovery_time: '5m', monitoring: [] } },
    {
      incidents: store,
      conversations: { getConversation: async () => undefined },
      config: CONFIG,
      now: () => new Date('2015-11-21T12:00:00Z'),
    },
  );
  const plan = (await store.getRecord('inc-1'))?.plan;
  if (plan === undefined) throw new Error('recordPlan stored no plan');
  return plan;
}

describe('a remediation plan', () => {
  it('needs an approval for a mutating skill even when the model says it does not', async () => {
    const [step] = (await recordedPlan([stepOf({ skill: 'restart' })])).steps;
    expect(step).toMatchObject({ skill: 'restart', requiresApproval: true, status: 'pending' });
    expect(step?.notes).toContain('needs an approval: it changes something (code decides, not the model)');
  });

  it('leaves a step whose skill is not configured to people, and runs a read-only skill without approval', async () => {
    const { steps } = await recordedPlan([
      stepOf({ skill: 'drop_database', risk_level: 'high' }),
      stepOf({ skill: 'read_status' }),
    ]);
    expect(steps[0]).toMatchObject({ status: 'manual', requiresApproval: true });
    expect(steps[0]?.skill).toBeUndefined();
    expect(steps[1]).toMatchObject({ skill: 'read_status', requiresApproval: false, status: 'pending' });
  });

  it('matches runbooks by their phrases in the root cause, whatever the case', async () => {
    const matched = async (rootCause: string) => (await recordedPlan([], rootCause)).matchedRunbooks;
    expect((await matched('a payment provider timeout after the deploy')).map((r) => r.name)).toEqual([
      'provider',
    ]);
    expect(await matched('a full disk')).toEqual([]);
  });
});

/** An in-memory IncidentStore holding one record. */
function storeWith(steps: StoredStep[]): IncidentStore & { record: IncidentRecord } {
  const store = {
    record: {
      startedAt: 'now',
      channel: 'C',
      threadTs: '1.0',
      roundsDone: 0,
      rounds: [],
      progress: {},
      plan: { steps, estimatedRecoveryTime: '5m', monitoring: [], matchedRunbooks: [], status: 'running' },
    } as IncidentRecord,
    createRecord: async () => {},
    getRecord: async () => structuredClone(store.record),
    updateRecord: async (_: string, fields: Partial<IncidentRecord>) => {
      Object.assign(store.record, fields);
    },
    recordRound: async () => {},
    updateStep: async (_: string, step: StoredStep) => {
      const plan = store.record.plan;
      if (plan) plan.steps[step.index] = step;
    },
    putNodes: async () => {},
    listNodes: async () => [],
    setEvaluation: async () => {},
    updateNode: async () => {},
  };
  return store;
}

const pending = (over: Partial<StoredStep> = {}): StoredStep => ({
  index: 0,
  action: 'restart it',
  skill: 'restart',
  parameters: {},
  riskLevel: 'medium',
  requiresApproval: true,
  notes: [],
  status: 'awaiting_approval',
  ...over,
});

describe('running a step', () => {
  const calls: string[] = [];
  const skills: SkillRunner = {
    run: async (skill, action) => {
      calls.push(`${skill.name}:${action}`);
      return { ok: true, detail: 'done' };
    },
  };
  const deps = (store: IncidentStore) => ({
    incidents: store,
    conversations: { getConversation: async () => undefined as Conversation | undefined },
    config: CONFIG,
    now: () => new Date('2015-01-01T00:00:00Z'),
    skills,
  });

  it('refuses a step that needs an approval and has none, calling no skill', async () => {
    calls.length = 0;
    const store = storeWith([pending()]);
    await expect(runStep({ conversationId: 'c', index: 0 }, deps(store))).rejects.toBeInstanceOf(
      ApprovalRequiredError,
    );
    expect(calls).toEqual([]);
  });

  it('refuses a mutating skill stored without the approval flag: the configuration decides too', async () => {
    calls.length = 0;
    const store = storeWith([pending({ requiresApproval: false, status: 'pending' })]);
    await expect(runStep({ conversationId: 'c', index: 0 }, deps(store))).rejects.toBeInstanceOf(
      ApprovalRequiredError,
    );
    expect(calls).toEqual([]);
  });

  it('runs an approved step once: a retry after the call records it as interrupted instead of calling again', async () => {
    calls.length = 0;
    const approval = { decision: 'approve', by: 'U1', at: 'now', messageTs: '2.0' };
    const store = storeWith([pending({ status: 'approved', approval, running: true })]);
    const out = await runStep({ conversationId: 'c', index: 0 }, deps(store));
    expect(out).toMatchObject({ ok: false, detail: expect.stringContaining('interrupted') });
    expect(calls).toEqual([]);
    expect(store.record.plan?.status).toBe('stopped');
  });

  it('records the plan failed with the reason when the run failed after its retries, and shows it', async () => {
    const approval = { decision: 'approve', by: 'U1', at: 'now', messageTs: '2.0' };
    const store = storeWith([
      pending({ status: 'approved', approval, running: true }),
      pending({ index: 1 }),
    ]);
    const failure = {
      conversationId: 'c',
      index: 0,
      error: 'SkillFailedError',
      cause: 'Lambda ops-restart: throttled',
    };

    const out = await failStep(failure, deps(store));
    await failStep(failure, deps(store));

    const reason = 'step 1 could not be run: SkillFailedError (Lambda ops-restart: throttled)';
    expect(out.reason).toBe(reason);
    expect(store.record.plan).toMatchObject({ status: 'failed', stopReason: reason });
    expect(store.record.plan?.steps[0]).toMatchObject({ status: 'failed', running: false });
    expect(store.record.plan?.steps[0]?.result?.detail).toContain('its outcome is unknown, check by hand');
    expect(await nextStep({ conversationId: 'c' }, deps(store))).toEqual({ done: true, status: 'failed' });
    expect(renderPhase('remediation', store.record, [])).toContain(`*Remediation* — failed: ${reason}`);
  });
});

describe("a rejected plan's message", () => {
  it('says who rejected it and when as a sentence with a live mention, never an escaped one', () => {
    const store = storeWith([
      pending({
        status: 'rejected',
        approval: { decision: 'reject', by: 'U_ONCALL', at: '2023-11-14T22:13:20.000Z', messageTs: '1.1' },
      }),
    ]);
    if (store.record.plan) {
      store.record.plan.status = 'stopped';
      store.record.plan.stopReason = 'step 1 was rejected by <@U_ONCALL> at 2023-11-14T22:13:20.000Z';
    }
    const text = renderPhase('remediation', store.record, []);
    const when = '<!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>';
    expect(text).toContain(`*Remediation* — stopped: step 1 was rejected by <@U_ONCALL> at ${when}`);
    expect(text).toContain(`1. :no_entry: Rejected by <@U_ONCALL> at ${when} restart it`);
    expect(text).not.toContain('&lt;@');
    expect(text).not.toContain('resolved');
  });
});
