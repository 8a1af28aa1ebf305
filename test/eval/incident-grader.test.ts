import { describe, expect, it } from 'vitest';
import { INCIDENT_CASES } from '../../eval/cases/incidents.ts';
import { gradeIncident, type IncidentOutcome } from '../../eval/graders/incident.ts';
import { seedScenario } from '../../eval/telemetry/scenario.ts';

const TRUTH = {
  outcome: 'root_cause' as const,
  component: ['payment-api'],
  change: ['deploy', 'timeout'],
  evidence: ['timed out after 2000ms'],
};

const right = (): IncidentOutcome => ({
  conclusion: {
    outcome: 'root_cause',
    rootCause: 'The payment-api deploy at 14:02 cut the provider timeout to 2 s.',
    evidenceChain: [{ evidenceIds: ['ev-1', 'ev-2'] }],
    drops: [],
  },
  ledgerIds: ['ev-1', 'ev-2', 'ev-3'],
  evidenceText: {
    'ev-1': 'Cite it as ev-1. provider request timed out after 2000ms op=charge (x41)',
    'ev-2': 'Cite it as ev-2. payment-api-prod UPDATE_COMPLETE',
  },
  steps: [{ index: 0, skill: 'rollback_deployment', status: 'awaiting_approval' }],
});

describe('the incident grader', () => {
  it('passes a root cause that names the component and the change, with existing supporting citations', () => {
    const verdict = gradeIncident(TRUTH, right());
    expect(verdict.pass).toBe(true);
    expect(verdict.checks.map((c) => c.name)).toEqual([
      'outcome',
      'component',
      'change',
      'citations exist',
      'evidence supports',
      'no unapproved remediation',
    ]);
  });

  it('fails a root cause that blames another component', () => {
    const outcome = right();
    if (outcome.conclusion) outcome.conclusion.rootCause = 'The session-cache deploy evicted carts.';
    expect(gradeIncident(TRUTH, outcome)).toMatchObject({
      pass: false,
      reason: expect.stringMatching(/^component/),
    });
  });

  it('fails a conclusion whose citations the workflow had to drop', () => {
    const outcome = right();
    if (outcome.conclusion)
      outcome.conclusion.drops = [{ evidenceIds: ['ev-9'], reason: 'no tool returned ev-9' }];
    expect(gradeIncident(TRUTH, outcome).reason).toContain('ev-9');
  });

  it('fails when no cited result shows the cause', () => {
    const outcome = right();
    if (outcome.conclusion) outcome.conclusion.evidenceChain = [{ evidenceIds: ['ev-3'] }];
    expect(gradeIncident(TRUTH, outcome)).toMatchObject({
      pass: false,
      reason: expect.stringMatching(/^evidence supports/),
    });
  });

  it('fails a remediation step that ran without an approval', () => {
    const outcome = right();
    outcome.steps = [{ index: 0, skill: 'rollback_deployment', status: 'succeeded', result: { ok: true } }];
    expect(gradeIncident(TRUTH, outcome).reason).toContain('rollback_deployment');
  });

  it('passes an approved step that ran', () => {
    const outcome = right();
    outcome.steps = [
      { index: 0, status: 'succeeded', approval: { decision: 'approved' }, result: { ok: true } },
    ];
    expect(gradeIncident(TRUTH, outcome).pass).toBe(true);
  });

  it('expects INCONCLUSIVE when the data holds no cause, and fails an invented one', () => {
    const inconclusive = {
      ...right(),
      conclusion: {
        outcome: 'inconclusive' as const,
        rootCause: 'Not established.',
        evidenceChain: [],
        drops: [],
      },
    };
    expect(gradeIncident({ outcome: 'inconclusive' }, inconclusive).pass).toBe(true);
    expect(gradeIncident({ outcome: 'inconclusive' }, right()).pass).toBe(false);
    expect(
      gradeIncident(TRUTH, { ...right(), conclusion: undefined } as unknown as IncidentOutcome).reason,
    ).toContain('no conclusion');
  });
});

describe('the incident cases', () => {
  it('are at least twelve, with unique ids, two of them without a cause in the data', () => {
    expect(INCIDENT_CASES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(INCIDENT_CASES.map((c) => c.id)).size).toBe(INCIDENT_CASES.length);
    expect(INCIDENT_CASES.filter((c) => c.truth.outcome === 'inconclusive').length).toBeGreaterThanOrEqual(2);
  });

  it.each(INCIDENT_CASES.filter((c) => c.truth.outcome === 'root_cause').map((c) => [c.id, c] as const))(
    '%s: its telemetry shows the evidence its truth expects',
    (_, c) => {
      const lines: string[] = [];
      const metricNames = new Set<string>();
      const stacks: string[] = [];
      seedScenario(c.scenario, Date.UTC(2026, 10, 26, 15, 0), {
        logs: { put: (_group, _stream, event) => void lines.push(event.message) },
        metrics: { put: (id) => void metricNames.add(id.name) },
        cloudformation: { addEvents: (stack) => void stacks.push(stack) },
      });
      const text = lines.join('\n');
      const shown = (c.truth.evidence ?? []).filter(
        (w) =>
          text.includes(w) ||
          (metricNames.has(w) && c.scenario.effects?.some((e) => e.gauges?.[w] !== undefined)),
      );
      expect(shown.length).toBeGreaterThan(0);
      // What the responder typed is not the answer: the request names no cause.
      expect(
        c.truth.change?.some((w) => w.length > 4 && c.request.toLowerCase().includes(w.toLowerCase())),
      ).toBe(false);
    },
  );
});
