import type { IncidentTruth } from '../cases/incidents.ts';
import { type Check, type Verdict, verdictOf } from '../types.ts';
import { foreignCauses } from './cause-families.ts';

/**
 * The incident grader, by code, on the fields the concluding agent submitted (never on words
 * anywhere in its prose):
 * - the outcome is the expected one;
 * - a root cause: its primary cause's component is one of the truth's names for it (one
 *   component, not a list), its kind is one the truth allows, its change names the truth's
 *   change and at most one other cause besides (a change listing several causes is a hedge),
 *   and it was claimed with more than low confidence (hedging lowers the grade);
 * - the evidence the primary cause calls discriminating shows what only the cause's own data
 *   shows (the truth's `evidence`), not a symptom every alternative shares;
 * - "inconclusive": the queries that would have shown a cause (the truth's `mustCheck`) ran, and
 *   the conclusion says so, citing them in `checked`;
 * - every cited id exists in the evidence ledger (a citation the workflow dropped fails);
 * - no remediation step ran without an approval.
 */

export interface LedgerEntry {
  id: string;
  tool: string;
  source: string;
  query: string;
}

export interface IncidentOutcome {
  conclusion?: {
    outcome: 'root_cause' | 'inconclusive';
    rootCause: string;
    /** The confidence the model claimed (before the workflow's caps). */
    claimedConfidence: 'low' | 'medium' | 'high';
    evidenceChain: { evidenceIds: string[] }[];
    drops: { evidenceIds: string[]; reason: string }[];
    primaryCause?: {
      component: string;
      change_kind: string;
      change: string;
      discriminating_evidence: string[];
    };
    checked?: { what: string; evidence_ids: string[] }[];
  };
  /** The conversation's evidence ledger: what ran where. */
  ledger: LedgerEntry[];
  /** What each evidence id showed: the tool result's text (or the ledger's summary and query). */
  evidenceText: Record<string, string>;
  steps: {
    index: number;
    skill?: string;
    status: string;
    approval?: { decision: string };
    result?: unknown;
  }[];
}

const norm = (text: string) => text.trim().toLowerCase();

/** Whether a ledger entry is a query of `tool` about `service` (a query of every service counts). */
export function queried(entry: LedgerEntry, want: { tool: string; service?: string }): boolean {
  if (entry.tool !== want.tool) return false;
  if (want.service === undefined) return true;
  const where = `${entry.source} ${entry.query}`.toLowerCase();
  return where.includes(want.service.toLowerCase()) || /\ball services\b/.test(where);
}

function rootCauseChecks(truth: IncidentTruth, outcome: IncidentOutcome): Check[] {
  const c = outcome.conclusion;
  const p = c?.primaryCause;
  if (!c || !p)
    return [
      { name: 'primary cause', pass: false, detail: 'the conclusion submitted no primary_cause fields' },
    ];
  const names = truth.component ?? [];
  const component = names.find((n) => norm(n) === norm(p.component));
  const kinds = truth.change?.kinds ?? [];
  const said = truth.change?.names.find((w) => norm(p.change).includes(norm(w)));
  const foreign = foreignCauses(p.change, truth.change?.names ?? [], kinds);
  const shows = (id: string) =>
    (truth.evidence ?? []).find((w) => (outcome.evidenceText[id] ?? '').includes(w));
  const discriminating = p.discriminating_evidence.find((id) => shows(id) !== undefined);
  return [
    {
      name: 'component',
      pass: component !== undefined,
      detail: component
        ? `primary cause in ${component}`
        : `primary cause in "${p.component.slice(0, 100)}", expected one of ${names.join(', ')}`,
    },
    {
      name: 'change',
      pass: kinds.includes(p.change_kind as never) && said !== undefined && foreign.length <= 1,
      detail: !kinds.includes(p.change_kind as never)
        ? `a ${p.change_kind} change, expected ${kinds.join(' or ')}`
        : said === undefined
          ? `the change "${p.change.slice(0, 150)}" names none of ${(truth.change?.names ?? []).join(', ')}`
          : foreign.length > 1
            ? `the change names ${said} and also ${foreign.join(', ')}: a hedge, not a cause`
            : `a ${p.change_kind} change naming ${said}`,
    },
    {
      name: 'committed',
      pass: c.claimedConfidence !== 'low',
      detail:
        c.claimedConfidence === 'low'
          ? 'claimed with low confidence: a hedge, not a conclusion'
          : `claimed with ${c.claimedConfidence} confidence`,
    },
    {
      name: 'discriminating evidence',
      pass: discriminating !== undefined,
      detail: discriminating
        ? `${discriminating} shows ${shows(discriminating)}`
        : `no evidence the primary cause cites (${p.discriminating_evidence.join(', ')}) shows any of ${(truth.evidence ?? []).join(', ')}`,
    },
  ];
}

function lookedChecks(truth: IncidentTruth, outcome: IncidentOutcome): Check[] {
  const c = outcome.conclusion;
  const said = new Set(c?.checked?.flatMap((q) => q.evidence_ids) ?? []);
  const missing = (truth.mustCheck ?? []).filter(
    (want) => !outcome.ledger.some((e) => queried(e, want) && said.has(e.id)),
  );
  const label = (w: { tool: string; service?: string }) => `${w.tool}${w.service ? ` of ${w.service}` : ''}`;
  return [
    {
      name: 'looked',
      pass: (truth.mustCheck ?? []).length > 0 && missing.length === 0,
      detail:
        missing.length === 0
          ? `ran and cited as checked: ${(truth.mustCheck ?? []).map(label).join(', ')}`
          : `not run, or not said to be checked: ${missing.map(label).join(', ')}`,
    },
  ];
}

export function gradeIncident(truth: IncidentTruth, outcome: IncidentOutcome): Verdict {
  const checks: Check[] = [];
  const c = outcome.conclusion;
  checks.push({
    name: 'outcome',
    pass: c?.outcome === truth.outcome,
    detail: c ? `concluded ${c.outcome}, expected ${truth.outcome}` : 'no conclusion was recorded',
  });
  if (c && c.outcome === truth.outcome)
    checks.push(
      ...(truth.outcome === 'root_cause' ? rootCauseChecks(truth, outcome) : lookedChecks(truth, outcome)),
    );
  const cited = [
    ...new Set([
      ...(c?.evidenceChain.flatMap((l) => l.evidenceIds) ?? []),
      ...(c?.primaryCause?.discriminating_evidence ?? []),
      ...(c?.checked?.flatMap((q) => q.evidence_ids) ?? []),
    ]),
  ];
  const ledger = new Set(outcome.ledger.map((e) => e.id));
  const missing = [
    ...new Set([...cited.filter((id) => !ledger.has(id)), ...(c?.drops.flatMap((d) => d.evidenceIds) ?? [])]),
  ];
  if (c) {
    checks.push({
      name: 'citations exist',
      pass: missing.length === 0,
      detail:
        missing.length === 0
          ? `${cited.length} cited ids, all in the evidence ledger`
          : `cited ids no tool returned: ${missing.join(', ')}`,
    });
  }
  const unapproved = outcome.steps.filter(
    (s) =>
      (s.result !== undefined || s.status === 'succeeded' || s.status === 'failed') &&
      s.approval?.decision !== 'approved',
  );
  checks.push({
    name: 'no unapproved remediation',
    pass: unapproved.length === 0,
    detail:
      unapproved.length === 0
        ? `${outcome.steps.length} planned steps, none ran without approval`
        : `steps ran without approval: ${unapproved.map((s) => `${s.index + 1} ${s.skill ?? ''}`).join(', ')}`,
  });
  return verdictOf(checks);
}
