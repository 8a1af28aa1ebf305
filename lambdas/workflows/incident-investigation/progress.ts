import { decisionSentence } from '../../kernel/decision-text.ts';
import { escapeMrkdwn, truncate } from '../../slack/templates/text.ts';
import type { IncidentRecord, Phase, StoredStep } from './record.ts';
import { CONCLUDE_REASONS, type HypothesisNode, type StoredEvaluation } from './tree.ts';

/**
 * The thread's progress, compactly: one message per phase, posted once and
 * then updated in place as the phase moves on: the triage, the hypothesis tree with each
 * evaluation (statuses, kept citations, drops), the conclusion with its evidence chain, and
 * the remediation plan with each step's state. Rendered from what is stored, so an update
 * from any task shows the whole current picture.
 */

/** Slack's message text limit is 40,000; a compact phase message stays far below. */
const MESSAGE_LIMIT = 3_900;

const e = (text: string, limit = 400) => escapeMrkdwn(truncate(text, limit));
const list = (items: readonly string[]) =>
  items.length === 0 ? '_none_' : items.map((i) => e(i, 300)).join('; ');

const STATUS: Record<HypothesisNode['status'], string> = {
  open: ':hourglass_flowing_sand: open',
  confirmed: ':white_check_mark: confirmed',
  pruned: ':x: pruned',
  branched: ':twisted_rightwards_arrows: branched',
};

const STEP: Record<StoredStep['status'], string> = {
  pending: ':white_circle: to run',
  manual: ':bust_in_silhouette: for people',
  awaiting_approval: ':raised_hand: awaiting approval',
  approved: ':thumbsup: approved',
  rejected: ':no_entry: rejected',
  succeeded: ':white_check_mark: done',
  failed: ':x: failed',
  not_run: ':zzz: not run',
};

const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

export function renderPhase(phase: Phase, record: IncidentRecord, nodes: readonly HypothesisNode[]): string {
  const text = {
    triage: renderTriage,
    hypotheses: renderHypotheses,
    conclusion: renderConclusion,
    remediation: renderRemediation,
  }[phase](record, nodes);
  return truncate(text, MESSAGE_LIMIT);
}

function renderTriage(record: IncidentRecord): string {
  const t = record.triage;
  if (t === undefined) return ':rotating_light: *Triage*: in progress…';
  return [
    `:rotating_light: *Triage* — severity *${t.severity}*`,
    e(t.incident_summary, 600),
    `*Services:* ${list(t.affected_services)}`,
    `*Symptoms:* ${list(t.symptoms)}`,
    `*Window:* ${t.time_window.start} to ${t.time_window.end}`,
  ].join('\n');
}

function lastEvaluation(node: HypothesisNode): string {
  const rounds = Object.keys(node.evaluations)
    .map(Number)
    .sort((a, b) => b - a);
  const last = rounds[0] === undefined ? undefined : node.evaluations[String(rounds[0])];
  if (last === undefined) return '';
  if (!('action' in last)) return ` — round ${last.round}: no evaluation (${e(last.failed, 150)})`;
  const ev = last as StoredEvaluation;
  const cites = [...new Set(ev.findings.flatMap((f) => f.evidenceIds))];
  const drops = ev.drops.filter((d) => d.dropped === 'finding').length;
  return ` — round ${ev.round}: ${ev.strength}, ${ev.action}, confidence ${ev.confidence}${
    cites.length > 0 ? `, cites ${cites.slice(0, 6).join(', ')}` : ''
  }${drops > 0 ? `, ${drops} uncited finding${drops === 1 ? '' : 's'} dropped` : ''}${
    ev.adjustments.length > 0 ? ` (${e(ev.adjustments.join('; '), 200)})` : ''
  }`;
}

function renderHypotheses(record: IncidentRecord, nodes: readonly HypothesisNode[]): string {
  const sorted = [...nodes].sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  const lines = sorted.map(
    (n) =>
      `${'    '.repeat(n.depth - 1)}• *${n.id}* ${STATUS[n.status]} (${n.category}) ${e(n.statement, 200)}${lastEvaluation(n)}`,
  );
  const state = record.concludedBecause
    ? `ended: ${CONCLUDE_REASONS[record.concludedBecause as keyof typeof CONCLUDE_REASONS] ?? record.concludedBecause}`
    : `${record.roundsDone} round${record.roundsDone === 1 ? '' : 's'} done`;
  return [`:mag: *Hypotheses* — ${state}`, ...lines].join('\n');
}

function renderConclusion(record: IncidentRecord): string {
  const c = record.conclusion;
  if (c === undefined) return ':dart: *Conclusion*: in progress…';
  const head =
    c.outcome === 'root_cause'
      ? `:dart: *Root cause* (confidence *${c.confidence}*${c.hypothesisId ? `, ${c.hypothesisId}` : ''}): ${e(c.rootCause, 600)}`
      : `:grey_question: *INCONCLUSIVE*: ${e(c.rootCause, 400)}`;
  const chain = c.evidenceChain.map(
    (link, i) => `${i + 1}. ${e(link.finding, 250)} [${link.evidenceIds.join(', ')}] (${link.strength})`,
  );
  const drops = c.drops.map((d) => `${e(d.finding, 150)}: ${e(d.reason, 150)}`);
  return [
    head,
    ...(chain.length > 0 ? ['*Evidence chain:*', ...chain] : []),
    `*Alternatives:* ${list(c.alternativeExplanations)}`,
    `*Unknowns:* ${list(c.unknowns)}`,
    ...(c.gaps.length > 0 ? [`*Gaps:* ${list(c.gaps)}`] : []),
    ...(drops.length > 0 ? [`*Dropped:* ${drops.join('; ')}`] : []),
    ...(c.adjustments.length > 0 ? [`_Checked by code: ${e(c.adjustments.join('; '), 400)}_`] : []),
  ].join('\n');
}

function renderRemediation(record: IncidentRecord): string {
  const p = record.plan;
  if (p === undefined) return ':hammer_and_wrench: *Remediation*: planning…';
  const steps = p.steps.map((s) => {
    const detail = s.result ? ` — ${s.result.ok ? 'ok' : 'failed'}: ${e(s.result.detail, 150)}` : '';
    const rollback = s.rollbackResult
      ? ` — rollback ${s.rollbackResult.ok ? 'done' : 'not done'}: ${e(s.rollbackResult.detail, 150)}`
      : '';
    // Who decided reads as a sentence; a rejection is the step's status itself.
    const status =
      s.status === 'rejected' && s.approval
        ? `:no_entry: ${decisionSentence(s.approval)}`
        : `${STEP[s.status]}${s.approval ? ` (${decisionSentence(s.approval)})` : ''}`;
    return `${s.index + 1}. ${status} ${e(s.action, 200)}${s.skill ? ` [skill \`${s.skill}\`]` : ''}${s.command ? ` \`${e(s.command, 150)}\`` : ''}${detail}${rollback}`;
  });
  // A rejection is told from the step's decision, so its mention and time render as Slack's;
  // any other reason is text (a skill's output among them), escaped.
  const rejected =
    p.status === 'stopped' ? p.steps.find((s) => s.status === 'rejected' && s.approval) : undefined;
  const reason =
    rejected?.approval !== undefined
      ? `step ${rejected.index + 1} was ${lowerFirst(decisionSentence(rejected.approval))}`
      : p.stopReason
        ? e(p.stopReason, 300)
        : undefined;
  return [
    `:hammer_and_wrench: *Remediation* — ${p.status}${reason ? `: ${reason}` : ''}`,
    ...(p.matchedRunbooks.length > 0
      ? [`*Runbooks:* ${p.matchedRunbooks.map((r) => e(r.title, 100)).join('; ')}`]
      : []),
    ...(steps.length > 0 ? steps : ['_No steps._']),
    `*Recovery:* ${e(p.estimatedRecoveryTime, 100)}`,
    `*Monitoring to verify the fix:* ${list(p.monitoring)}`,
  ].join('\n');
}
