import { describe, expect, it } from 'vitest';
import { DynamoEvidenceLedger } from '../../lambdas/workflows/incident-investigation/telemetry/dynamo-evidence-ledger.ts';
import type { StoredEvaluation } from '../../lambdas/workflows/incident-investigation/tree.ts';
import type { RecordedModelRequest } from '../support/scripted-model.ts';
import {
  answer,
  evaluation,
  evidenceIdOf,
  finished,
  HYPOTHESES,
  INCIDENTS,
  NO_PLAN,
  query,
  slashInvestigate,
  TRIAGE,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * The evidence rules in the sandbox, against the emulated CloudWatch and CloudFormation seeded
 * with the demo incident: the scripted investigator calls the real data tools and cites the
 * evidence ids they return; code keeps what is cited, drops what is not, and confirms only with
 * a strong cited finding.
 */
describe('an incident investigation with evidence', () => {
  const h = useIncidentHarness({ incidentInvestigation: { mapConcurrency: 3 } });

  it('branches a hypothesis, confirms a sub-hypothesis with cited evidence, and drops an uncited finding', async () => {
    const id = await slashInvestigate(h, 'trigger-evidence', 'checkout latency');
    const cited: Record<string, string> = {};
    h.script(id, {
      submit_triage: [query('service_map', {}), answer(TRIAGE)],
      submit_hypotheses: [answer(HYPOTHESES)],
      'submit_evaluation:H1': [
        query('query_logs', { service: 'payment-api', filterPattern: 'timeout', lastMinutes: 180 }),
        (request) => {
          cited.logs = evidenceIdOf(request);
          return answer(
            evaluation(
              'H1',
              'branch',
              'strong',
              [
                {
                  finding: 'payment-api logs provider timeouts since the incident began',
                  evidence_ids: [cited.logs],
                  strength: 'strong',
                },
              ],
              {
                sub_hypotheses: [
                  {
                    statement: 'The deploy of payment-api made provider calls time out',
                    category: 'application',
                    confirming_evidence: 'timeouts start right after the deploy',
                    refuting_evidence: 'timeouts predate the deploy',
                  },
                  {
                    statement: 'The payment provider itself is degraded',
                    category: 'dependency',
                    confirming_evidence: 'timeouts without a deploy',
                    refuting_evidence: 'timeouts follow the deploy',
                  },
                ],
              },
            ),
          )(request);
        },
      ],
      'submit_evaluation:H2': [
        query('query_metrics', { service: 'session-cache', metrics: ['Evictions'], lastMinutes: 180 }),
        (request) =>
          answer(
            evaluation('H2', 'prune', 'none', [
              {
                finding: 'cache evictions stayed flat',
                evidence_ids: [evidenceIdOf(request)],
                strength: 'contradicting',
              },
            ]),
          )(request),
      ],
      'submit_evaluation:H3': [
        answer(
          evaluation('H3', 'continue', 'weak', [
            { finding: 'checkout was probably deployed recently', evidence_ids: [], strength: 'weak' },
          ]),
        ),
        answer(evaluation('H3', 'prune', 'none')),
      ],
      'submit_evaluation:H1.1': [
        query('recent_deployments', { service: 'payment-api', lastMinutes: 180 }),
        (request: RecordedModelRequest) => {
          cited.deploy = evidenceIdOf(request);
          return query('query_metrics', {
            service: 'payment-api',
            metrics: ['ProviderTimeouts'],
            lastMinutes: 180,
          });
        },
        (request) =>
          answer(
            evaluation('H1.1', 'confirm', 'strong', [
              {
                finding: 'payment-api was deployed just before the timeouts began',
                evidence_ids: [cited.deploy ?? ''],
                strength: 'strong',
              },
              {
                finding: 'provider timeouts jumped right after the deploy',
                evidence_ids: [evidenceIdOf(request)],
                strength: 'strong',
              },
              { finding: 'an invented log line', evidence_ids: ['ev-999'], strength: 'strong' },
            ]),
          )(request),
      ],
      'submit_evaluation:H1.2': [answer(evaluation('H1.2', 'prune', 'none'))],
      submit_conclusion: [
        (request) =>
          answer({
            outcome: 'root_cause',
            root_cause: 'The payment-api deploy made calls to the payment provider time out.',
            hypothesis_id: 'H1.1',
            confidence: 'high',
            evidence_chain: [
              {
                finding: 'deploy before the timeouts',
                evidence_ids: [cited.deploy ?? ''],
                strength: 'strong',
              },
              {
                finding: 'provider timeouts in the logs',
                evidence_ids: [cited.logs ?? ''],
                strength: 'strong',
              },
            ],
            alternative_explanations: ['The provider degraded at the same time'],
            unknowns: [],
            gaps: [],
          })(request),
      ],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    const thread = await threadOf(h, id);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const nodes = await h.incidents.listNodes(id);
    expect(Object.fromEntries(nodes.map((n) => [n.id, n.status]))).toEqual({
      H1: 'branched',
      'H1.1': 'confirmed',
      'H1.2': 'pruned',
      H2: 'pruned',
      H3: 'pruned',
    });
    const h11 = nodes.find((n) => n.id === 'H1.1');
    const confirmed = h11?.evaluations['2'] as StoredEvaluation;
    expect(confirmed.action).toBe('confirm');
    expect(confirmed.findings.map((f) => f.evidenceIds)).toEqual([
      [cited.deploy],
      [expect.stringMatching(/^ev-\d+$/)],
    ]);
    expect(confirmed.drops).toEqual([
      expect.objectContaining({
        finding: 'an invented log line',
        dropped: 'finding',
        evidenceIds: ['ev-999'],
      }),
    ]);
    expect(confirmed.level).toBe('high');
    // The uncited finding of H3 in round 1 was dropped and its weak strength lowered.
    const h3 = nodes.find((n) => n.id === 'H3')?.evaluations['1'] as StoredEvaluation;
    expect(h3.drops).toEqual([
      expect.objectContaining({
        finding: 'checkout was probably deployed recently',
        reason: 'cites no evidence',
      }),
    ]);
    expect(h3.strength).toBe('none');

    // Each hypothesis's queries were counted in its own scope of its round; round 1's
    // hypotheses ran in parallel, so their records may come in either order.
    const ledger = new DynamoEvidenceLedger({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName });
    const scopes = (await ledger.listEvidence(id)).map((e) => [e.tool, e.scope]);
    expect(scopes).toHaveLength(5);
    expect(scopes).toEqual(
      expect.arrayContaining([
        ['service_map', 'unscoped'],
        ['query_logs', 'round-1:h1'],
        ['query_metrics', 'round-1:h2'],
        ['recent_deployments', 'round-2:h1.1'],
        ['query_metrics', 'round-2:h1.1'],
      ]),
    );

    const record = await h.incidents.getRecord(id);
    expect(record?.conclusion).toMatchObject({
      outcome: 'root_cause',
      hypothesisId: 'H1.1',
      confidence: 'high',
    });
    expect(record?.conclusion?.evidenceChain.map((l) => l.evidenceIds)).toEqual([
      [cited.deploy],
      [cited.logs],
    ]);
    expect(record?.metrics).toMatchObject({
      hypothesesFormed: 5,
      hypothesesConfirmed: 1,
      hypothesesPruned: 3,
      maxDepth: 2,
      rounds: 2,
      toolCallsPerInvestigation: 5,
      findingsDropped: 2,
      outcome: 'root_cause',
    });
    expect(record?.metrics?.timeToRootCause).toBeGreaterThanOrEqual(0);

    const posts = (await h.messages(INCIDENTS, thread)).filter((m) => m.bot).map((m) => m.text);
    const tree = posts.find((t) => t.includes('*Hypotheses*'));
    expect(tree).toContain('*H1.1* :white_check_mark: confirmed');
    expect(tree).toContain('1 uncited finding dropped');
    expect(posts.some((t) => t.startsWith(':dart: *Root cause* (confidence *high*, H1.1)'))).toBe(true);
  });
});
