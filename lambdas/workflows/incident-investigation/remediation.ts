import type { DecisionRecord } from '../../kernel/approvals.ts';
import type { ConversationStore } from '../../kernel/ports.ts';
import type { RemediationConfig, Skill } from './config.ts';
import type { RemediationPlanResult } from './contract.ts';
import { ApprovalRequiredError, IncidentNotFoundError, IncidentStateError } from './errors.ts';
import type { IncidentRecord, IncidentStore, StoredPlan, StoredStep } from './record.ts';

/**
 * Remediation (its REMEDIATE), with its rules in code: a plan's steps are matched to the
 * configured runbooks and skills; a step runs only through a configured skill, and a step that
 * changes anything (a mutating skill, a risk above low, or the model's own flag) runs only
 * after an approval recorded by the Router from an authorized press; a failed step runs its
 * rollback; a rejection, a failure or no decision in time stops the plan with the reason.
 */

/** The decision kind of a remediation step's buttons (`slackAgents.approvals`). */
export const STEP_DECISION = 'remediation_step';

/** Runs a skill; `ok: false` is the skill failing (recorded), a throw is the call failing (retried). */
export interface SkillRunner {
  run(
    skill: Skill,
    action: 'apply' | 'rollback',
    request: { conversationId: string; step: number; parameters: Record<string, string> },
  ): Promise<{ ok: boolean; detail: string }>;
}

export interface RemediationDeps {
  incidents: IncidentStore;
  conversations: Pick<ConversationStore, 'getConversation'>;
  config: RemediationConfig;
  now: () => Date;
}

async function requireRecord(deps: RemediationDeps, conversationId: string): Promise<IncidentRecord> {
  const record = await deps.incidents.getRecord(conversationId);
  if (record === undefined) throw new IncidentNotFoundError(conversationId);
  return record;
}

function requirePlan(record: IncidentRecord, conversationId: string): StoredPlan {
  if (record.plan === undefined) throw new IncidentStateError(`conversation ${conversationId} has no plan`);
  return record.plan;
}

function requireStep(plan: StoredPlan, index: number): StoredStep {
  const step = plan.steps[index];
  if (step === undefined) throw new IncidentStateError(`the plan has no step ${index + 1}`);
  return step;
}

/** Runbooks whose phrases appear in the root cause (case-insensitive). */
function matchRunbooks(config: RemediationConfig, rootCause: string) {
  const text = rootCause.toLowerCase();
  return config.runbooks.filter((r) => r.matches.some((phrase) => text.includes(phrase.toLowerCase())));
}

/** The plan as stored: each step matched to a configured skill, or left to people. */
function planSteps(result: RemediationPlanResult, config: RemediationConfig): StoredStep[] {
  const skills = new Map(config.skills.map((s) => [s.name, s]));
  const runbooks = new Set(config.runbooks.map((r) => r.name));
  return result.steps.map((step, index) => {
    const notes: string[] = [];
    const skill = step.skill === undefined ? undefined : skills.get(step.skill);
    if (step.skill !== undefined && skill === undefined)
      notes.push(`"${step.skill}" is not a configured skill: this step is for people to do`);
    if (step.runbook !== undefined && !runbooks.has(step.runbook))
      notes.push(`"${step.runbook}" is not a configured runbook`);
    const requiresApproval =
      step.requires_approval || step.risk_level !== 'low' || (skill?.mutating ?? false);
    if (skill && !step.requires_approval && requiresApproval)
      notes.push('needs an approval: it changes something (code decides, not the model)');
    return {
      index,
      action: step.action,
      ...(step.command ? { command: step.command } : {}),
      ...(skill ? { skill: skill.name } : {}),
      parameters: step.parameters ?? {},
      ...(step.rollback ? { rollback: step.rollback } : {}),
      ...(skill?.rollbackSkill ? { rollbackSkill: skill.rollbackSkill } : {}),
      riskLevel: step.risk_level,
      requiresApproval,
      ...(step.runbook && runbooks.has(step.runbook) ? { runbook: step.runbook } : {}),
      notes,
      status: skill ? 'pending' : 'manual',
    };
  });
}

export async function recordPlan(
  input: { conversationId: string; result?: RemediationPlanResult; error?: string },
  deps: RemediationDeps,
): Promise<{ steps: number; runnable: number }> {
  const record = await requireRecord(deps, input.conversationId);
  const result = input.result ?? { steps: [], estimated_recovery_time: 'unknown', monitoring: [] };
  const steps = planSteps(result, deps.config);
  const plan: StoredPlan = {
    steps,
    estimatedRecoveryTime: result.estimated_recovery_time,
    monitoring: result.monitoring,
    matchedRunbooks: matchRunbooks(deps.config, record.conclusion?.rootCause ?? '').map((r) => ({
      name: r.name,
      title: r.title,
    })),
    status: 'proposed',
    ...(input.error ? { stopReason: `no plan: the remediation agent did not finish (${input.error})` } : {}),
  };
  // A retried task keeps the plan it wrote first (its steps may have progressed since).
  if (record.plan === undefined) await deps.incidents.updateRecord(input.conversationId, { plan });
  const stored = record.plan ?? plan;
  return { steps: stored.steps.length, runnable: stored.steps.filter((s) => s.skill !== undefined).length };
}

export type NextStep =
  | { done: true; status: StoredPlan['status'] }
  | { done: false; index: number; approval: boolean; text: string };

const OPEN: ReadonlySet<StoredStep['status']> = new Set(['pending', 'awaiting_approval', 'approved']);

/** The next step to run (with whether it waits for an approval first), or the plan's end. */
export async function nextStep(input: { conversationId: string }, deps: RemediationDeps): Promise<NextStep> {
  const record = await requireRecord(deps, input.conversationId);
  const plan = requirePlan(record, input.conversationId);
  const ended = plan.status === 'stopped' || plan.status === 'failed';
  const step = ended ? undefined : plan.steps.find((s) => OPEN.has(s.status));
  if (step === undefined) {
    const status = ended ? plan.status : 'completed';
    if (plan.status !== status)
      await deps.incidents.updateRecord(input.conversationId, { plan: { ...plan, status } });
    return { done: true, status };
  }
  if (plan.status !== 'running')
    await deps.incidents.updateRecord(input.conversationId, { plan: { ...plan, status: 'running' } });
  const approval = step.requiresApproval && step.status !== 'approved';
  if (approval && step.status !== 'awaiting_approval')
    await deps.incidents.updateStep(input.conversationId, { ...step, status: 'awaiting_approval' });
  return {
    done: false,
    index: step.index,
    approval,
    text: approvalText(step, plan.steps.length, deps.config),
  };
}

/** The words of a step's approval message. */
export function approvalText(step: StoredStep, total: number, config: RemediationConfig): string {
  const skill = config.skills.find((s) => s.name === step.skill);
  const params = Object.entries(step.parameters)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const rollback = step.rollbackSkill
    ? `runs skill \`${step.rollbackSkill}\``
    : step.rollback
      ? `by hand: ${step.rollback}`
      : 'none';
  return [
    `:wrench: *Remediation step ${step.index + 1} of ${total}* needs an approval: ${step.action}`,
    `Skill: \`${step.skill ?? 'none'}\`${skill ? ` (${skill.target.type})` : ''}${params ? ` with ${params}` : ''}. Risk: ${step.riskLevel}.`,
    `If it fails, the rollback ${rollback}. Approving runs it now; rejecting stops the plan.`,
  ].join('\n');
}

/**
 * Records what was decided on a step's approval (read from the conversation, where the Router
 * stored the authorized press: the approval of this kind open now is the step's), or that
 * nobody decided in time. The wait's own answer is not trusted for the decision.
 */
export async function decideStep(
  input: { conversationId: string; index: number; outcome: 'decided' | 'expired' },
  deps: RemediationDeps,
): Promise<{ decision: 'approve' | 'reject' | 'none'; reason?: string }> {
  const record = await requireRecord(deps, input.conversationId);
  const plan = requirePlan(record, input.conversationId);
  const step = requireStep(plan, input.index);
  const conversation = await deps.conversations.getConversation(input.conversationId, { consistent: true });
  const open = conversation?.approvals?.[STEP_DECISION];
  const decided: DecisionRecord | undefined = open?.decided;
  if (decided?.decision === 'approve') {
    const approval = { decision: 'approve', by: decided.by, at: decided.at, messageTs: decided.messageTs };
    if (step.status === 'awaiting_approval')
      await deps.incidents.updateStep(input.conversationId, { ...step, status: 'approved', approval });
    return { decision: 'approve' };
  }
  const reason = decided
    ? `step ${step.index + 1} was rejected by <@${decided.by}> at ${decided.at}`
    : `nobody decided on step ${step.index + 1} in time`;
  await deps.incidents.updateStep(input.conversationId, {
    ...step,
    status: decided ? 'rejected' : 'not_run',
    ...(decided
      ? {
          approval: {
            decision: decided.decision,
            by: decided.by,
            at: decided.at,
            messageTs: decided.messageTs,
          },
        }
      : {}),
  });
  await stopPlan(deps, input.conversationId, reason);
  return { decision: decided ? 'reject' : 'none', reason };
}

/**
 * Runs a step through its skill: only with an approval when it needs one (checked here, on the
 * stored step and the skill's configuration, whatever the caller says). A failure runs the
 * rollback and stops the plan; both results are recorded. A step found `running` was
 * interrupted: it is not run twice, its outcome is recorded as unknown.
 */
export async function runStep(
  input: { conversationId: string; index: number },
  deps: RemediationDeps & { skills: SkillRunner },
): Promise<{ ok: boolean; rolledBack: boolean; detail: string }> {
  const record = await requireRecord(deps, input.conversationId);
  const plan = requirePlan(record, input.conversationId);
  const step = requireStep(plan, input.index);
  if (step.status === 'succeeded' || step.status === 'failed') {
    return {
      ok: step.status === 'succeeded',
      rolledBack: step.rollbackResult?.ok ?? false,
      detail: step.result?.detail ?? '',
    };
  }
  const skill = deps.config.skills.find((s) => s.name === step.skill);
  if (skill === undefined)
    throw new IncidentStateError(`step ${step.index + 1} has no configured skill to run`);
  const needsApproval = step.requiresApproval || skill.mutating;
  if (needsApproval && (step.approval?.decision !== 'approve' || step.status !== 'approved')) {
    throw new ApprovalRequiredError(step.index);
  }
  if (!needsApproval && step.status !== 'pending') {
    throw new IncidentStateError(`step ${step.index + 1} is ${step.status}, not ready to run`);
  }
  const request = { conversationId: input.conversationId, step: step.index, parameters: step.parameters };
  // Marked first: a retry after the skill ran must not run it again.
  if (step.running === true) {
    const result = {
      ok: false,
      detail: 'interrupted while running: its outcome is unknown, check by hand',
      at: deps.now().toISOString(),
    };
    await deps.incidents.updateStep(input.conversationId, {
      ...step,
      running: false,
      status: 'failed',
      result,
    });
    await stopPlan(deps, input.conversationId, `step ${step.index + 1} was interrupted`);
    return { ok: false, rolledBack: false, detail: result.detail };
  }
  await deps.incidents.updateStep(input.conversationId, { ...step, running: true });
  const outcome = await deps.skills.run(skill, 'apply', request);
  const result = { ...outcome, at: deps.now().toISOString() };
  if (outcome.ok) {
    await deps.incidents.updateStep(input.conversationId, {
      ...step,
      running: false,
      status: 'succeeded',
      result,
    });
    return { ok: true, rolledBack: false, detail: outcome.detail };
  }
  const rollbackSkill = deps.config.skills.find((s) => s.name === step.rollbackSkill);
  const rollback = rollbackSkill
    ? await deps.skills.run(rollbackSkill, 'rollback', request).catch((error: unknown) => ({
        ok: false,
        detail: `the rollback could not run: ${(error as Error).message}`,
      }))
    : {
        ok: false,
        detail: step.rollback ? `no rollback skill: roll back by hand: ${step.rollback}` : 'no rollback',
      };
  const rollbackResult = { ...rollback, at: deps.now().toISOString() };
  await deps.incidents.updateStep(input.conversationId, {
    ...step,
    running: false,
    status: 'failed',
    result,
    rollbackResult,
  });
  await stopPlan(
    deps,
    input.conversationId,
    `step ${step.index + 1} failed (${outcome.detail}); rollback ${rollback.ok ? 'succeeded' : 'did not succeed'}: ${rollback.detail}`,
  );
  return { ok: false, rolledBack: rollback.ok, detail: outcome.detail };
}

/**
 * The step's run failed after its retries (the task threw: a skill's SDK call, a timeout, a
 * state that forbade running): the plan is recorded `failed` with the reason, and the step,
 * if the skill may have started, as failed with its outcome unknown. Never silent: the plan's
 * message shows the reason. Idempotent, so the state machine may retry it.
 */
export async function failStep(
  input: { conversationId: string; index: number; error: string; cause?: string | undefined },
  deps: RemediationDeps,
): Promise<{ reason: string }> {
  const plan = requirePlan(await requireRecord(deps, input.conversationId), input.conversationId);
  const step = requireStep(plan, input.index);
  const cause = (input.cause ?? '').slice(0, 500);
  const reason = `step ${step.index + 1} could not be run: ${input.error}${cause ? ` (${cause})` : ''}`;
  if (plan.status === 'failed' && plan.stopReason) return { reason: plan.stopReason };
  if (step.status !== 'succeeded' && step.status !== 'failed') {
    await deps.incidents.updateStep(input.conversationId, {
      ...step,
      running: false,
      status: 'failed',
      result: {
        ok: false,
        detail: step.running
          ? `${reason}; it may have started: its outcome is unknown, check by hand`
          : reason,
        at: deps.now().toISOString(),
      },
    });
  }
  const latest = requirePlan(await requireRecord(deps, input.conversationId), input.conversationId);
  await deps.incidents.updateRecord(input.conversationId, {
    plan: { ...latest, status: 'failed', stopReason: reason },
  });
  return { reason };
}

async function stopPlan(deps: RemediationDeps, conversationId: string, reason: string): Promise<void> {
  const plan = requirePlan(await requireRecord(deps, conversationId), conversationId);
  await deps.incidents.updateRecord(conversationId, {
    plan: { ...plan, status: 'stopped', stopReason: reason },
  });
}
