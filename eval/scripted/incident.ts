import type { ChangeKind } from '../../lambdas/workflows/incident-investigation/contract.ts';
import type { IncidentCase } from '../cases/incidents.ts';
import { gradeIncident, type IncidentOutcome } from '../graders/incident.ts';
import { EVAL_SERVICE_NAMES } from '../telemetry/services.ts';
import { ADJACENT, RIGHT_CHANGE, STUFFED } from './incident-answers.ts';
import type { ScriptedAnswer } from './scripted.ts';
import { type ScenarioEvidence, scenarioEvidence } from './telemetry-evidence.ts';

/**
 * An incident case's scripted answers, graded by the incident grader against evidence built
 * from the case's own telemetry: the true primary cause citing the data that shows it, and the
 * wrong ones (the adjacent component, the upstream symptom, a hedge listing every cause, keyword
 * stuffing, the right cause resting on symptoms only, a bare "inconclusive"); for a case whose
 * data holds no cause, "looked and found nothing" against not looking, looking without saying
 * so, looking elsewhere, and an invented cause.
 */

type Conclusion = NonNullable<IncidentOutcome['conclusion']>;

const SERVICES = new Set<string>(EVAL_SERVICE_NAMES);

/** The services the scenario shows something of, in order, besides `not`. */
function otherServices(c: IncidentCase, not: readonly string[]): string[] {
  const s = c.scenario;
  const all = [...(s.effects ?? []), ...(s.deploys ?? []), ...(s.lines ?? [])].map(
    (x) => x.service as string,
  );
  return [...new Set(all)].filter((x) => !not.includes(x));
}

const answer = (
  c: IncidentCase,
  ev: ScenarioEvidence,
  label: string,
  right: boolean,
  conclusion: Conclusion | undefined,
  ledger = ev.ledger,
): ScriptedAnswer => ({
  label,
  right,
  grade: async () =>
    gradeIncident(c.truth, {
      ...(conclusion ? { conclusion } : {}),
      ledger,
      evidenceText: ev.text,
      steps: [{ index: 0, skill: 'rollback_deployment', status: 'awaiting_approval' }],
    }),
});

const rootCause = (
  component: string,
  kind: ChangeKind,
  change: string,
  evidence: string[],
  confidence: Conclusion['claimedConfidence'] = 'high',
): Conclusion => ({
  outcome: 'root_cause',
  rootCause: `${component}: ${change}`,
  claimedConfidence: confidence,
  evidenceChain: [{ evidenceIds: evidence }],
  drops: [],
  primaryCause: { component, change_kind: kind, change, discriminating_evidence: evidence },
});

const inconclusive = (checked: Conclusion['checked']): Conclusion => ({
  outcome: 'inconclusive',
  rootCause: 'No root cause was established.',
  claimedConfidence: 'low',
  evidenceChain: [],
  drops: [],
  ...(checked ? { checked } : {}),
});

function rootCauseAnswers(c: IncidentCase, ev: ScenarioEvidence): ScriptedAnswer[] {
  const truth = c.truth;
  const component = truth.component?.[0] ?? '';
  const kind = truth.change?.kinds[0] ?? 'other';
  const shows = (id: string) => (truth.evidence ?? []).some((w) => (ev.text[id] ?? '').includes(w));
  const home = SERVICES.has(component) ? [component] : ['payment-api'];
  const own = ev.ledger.filter((e) => home.some((s) => `${e.source} ${e.query}`.includes(s)) && shows(e.id));
  const discriminating = (own.length > 0 ? own : ev.ledger.filter((e) => shows(e.id)))
    .map((e) => e.id)
    .slice(0, 5);
  const symptom = otherServices(c, [...(truth.component ?? []), ...home])[0];
  // The evidence of an affected service that shows none of the cause's own data: a symptom.
  const symptomIds =
    [...otherServices(c, []), ...home]
      .map((s) => [ev.idOf('query_logs', s), ev.idOf('query_metrics', s)])
      .find((ids) => !ids.some(shows)) ?? [];
  const adjacent = ADJACENT[c.id];
  const change = RIGHT_CHANGE[c.id] ?? '';
  const answers = [
    answer(c, ev, 'true answer', true, rootCause(component, kind, change, discriminating)),
    answer(c, ev, 'a bare "inconclusive"', false, inconclusive(undefined)),
    answer(
      c,
      ev,
      'a hedge listing every cause',
      false,
      rootCause(
        [component, ...EVAL_SERVICE_NAMES.filter((s) => s !== component)].slice(0, 5).join(' or '),
        kind,
        STUFFED,
        ev.ledger.map((e) => e.id).slice(0, 5),
        'low',
      ),
    ),
    answer(
      c,
      ev,
      'keyword stuffing',
      false,
      rootCause(component, kind, `${change}; or ${STUFFED}`, discriminating),
    ),
  ];
  if (adjacent) {
    answers.push(
      answer(
        c,
        ev,
        'the adjacent component',
        false,
        rootCause(adjacent.component, adjacent.kind, adjacent.change, discriminating),
      ),
    );
    if (!truth.change?.kinds.includes(adjacent.kind))
      answers.push(
        answer(
          c,
          ev,
          'the adjacent story filed under the right component',
          false,
          rootCause(component, adjacent.kind, adjacent.change, discriminating),
        ),
      );
  }
  if (symptom)
    answers.push(answer(c, ev, 'the upstream symptom', false, rootCause(symptom, kind, change, symptomIds)));
  if (symptomIds.length > 0)
    answers.push(
      answer(
        c,
        ev,
        'the right cause resting on symptoms only',
        false,
        rootCause(component, kind, change, symptomIds),
      ),
    );
  return answers;
}

function noCauseAnswers(c: IncidentCase, ev: ScenarioEvidence): ScriptedAnswer[] {
  const must = c.truth.mustCheck ?? [];
  const ids = must.map((m) => ev.idOf(m.tool, m.service));
  const elsewhere = EVAL_SERVICE_NAMES.find((s) => !must.some((m) => m.service === s)) ?? 'reports';
  const elsewhereIds = must.map((m) => ev.idOf(m.tool, elsewhere));
  const service = must[0]?.service ?? 'checkout';
  return [
    answer(
      c,
      ev,
      'true answer: looked and found nothing',
      true,
      inconclusive([
        { what: `deployments, logs and metrics of ${service}: nothing changed or failed`, evidence_ids: ids },
      ]),
    ),
    answer(c, ev, 'a bare "inconclusive"', false, inconclusive(undefined), []),
    answer(c, ev, 'looked but did not say so', false, inconclusive(undefined)),
    answer(
      c,
      ev,
      'looked at another service',
      false,
      inconclusive([{ what: `${elsewhere} is fine`, evidence_ids: elsewhereIds }]),
    ),
    answer(
      c,
      ev,
      'an invented cause',
      false,
      rootCause(service, 'capacity', 'upstream reset under load', ids.slice(0, 2)),
    ),
  ];
}

export function incidentAnswers(c: IncidentCase): ScriptedAnswer[] {
  const ev = scenarioEvidence(c.scenario);
  return c.truth.outcome === 'root_cause' ? rootCauseAnswers(c, ev) : noCauseAnswers(c, ev);
}
