import { describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../../lambdas/workflows/incident-investigation/contract.ts';
import {
  capLevel,
  checkFindings,
  type EvidenceRecord,
  judgeEvaluation,
} from '../../lambdas/workflows/incident-investigation/evidence.ts';
import {
  decideRound,
  firstNodes,
  type HypothesisNode,
  mergeRound,
  openInOrder,
} from '../../lambdas/workflows/incident-investigation/tree.ts';

/** The evidence rules and the tree's rules, held by code whatever the model submits. */

const ledger = new Map<string, EvidenceRecord>(
  [
    { id: 'ev-1', tool: 'query_logs', source: 'cloudwatch-logs:/ecs/payment-api', summary: '' },
    { id: 'ev-2', tool: 'query_logs', source: 'cloudwatch-logs:/ecs/payment-api', summary: '' },
    { id: 'ev-3', tool: 'recent_deployments', source: 'cloudformation:payment-api-prod', summary: '' },
  ].map((e) => [e.id, e]),
);

const evaluationOf = (over: Partial<EvaluationResult>): EvaluationResult => ({
  hypothesis_id: 'H1',
  evidence_strength: 'strong',
  reasoning: 'because',
  confidence: 90,
  action: 'confirm',
  findings: [],
  ...over,
});

describe('the evidence rules', () => {
  it('drops a finding without citations and one citing only ids no tool returned, recording why', () => {
    const { kept, drops } = checkFindings(
      [
        { finding: 'uncited', evidence_ids: [], strength: 'strong' },
        { finding: 'invented', evidence_ids: ['ev-9'], strength: 'strong' },
        { finding: 'real', evidence_ids: ['ev-1'], strength: 'weak' },
      ],
      ledger,
    );
    expect(kept.map((k) => k.finding)).toEqual(['real']);
    expect(drops).toEqual([
      { finding: 'uncited', evidenceIds: [], dropped: 'finding', reason: 'cites no evidence' },
      expect.objectContaining({ finding: 'invented', evidenceIds: ['ev-9'], dropped: 'finding' }),
    ]);
  });

  it('keeps a finding with some valid citations, removing and recording the invalid ones', () => {
    const { kept, drops } = checkFindings(
      [{ finding: 'mixed', evidence_ids: ['ev-1', 'ev-7'], strength: 'strong' }],
      ledger,
    );
    expect(kept).toEqual([
      {
        finding: 'mixed',
        strength: 'strong',
        evidenceIds: ['ev-1'],
        sources: ['cloudwatch-logs:/ecs/payment-api'],
      },
    ]);
    expect(drops).toEqual([expect.objectContaining({ dropped: 'citation', evidenceIds: ['ev-7'] })]);
  });

  it('refuses confirm without a strong cited finding, and lowers the claimed strength', () => {
    const judged = judgeEvaluation(
      evaluationOf({ findings: [{ finding: 'hint', evidence_ids: ['ev-1'], strength: 'weak' }] }),
      ledger,
      { canBranch: true },
    );
    expect(judged).toMatchObject({ action: 'continue', claimedAction: 'confirm', strength: 'weak' });
    expect(judged.adjustments).toContain(
      'confirm refused: it needs at least one strong finding with a valid citation',
    );
  });

  it('caps confidence from a single source at medium, however many findings rest on it', () => {
    const judged = judgeEvaluation(
      evaluationOf({
        findings: [
          { finding: 'a', evidence_ids: ['ev-1'], strength: 'strong' },
          { finding: 'b', evidence_ids: ['ev-2'], strength: 'strong' },
        ],
      }),
      ledger,
      { canBranch: true },
    );
    expect(judged).toMatchObject({ action: 'confirm', confidence: 69, level: 'medium' });
  });

  it('allows high confidence from two distinct sources', () => {
    const judged = judgeEvaluation(
      evaluationOf({
        findings: [
          { finding: 'a', evidence_ids: ['ev-1'], strength: 'strong' },
          { finding: 'b', evidence_ids: ['ev-3'], strength: 'strong' },
        ],
      }),
      ledger,
      { canBranch: true },
    );
    expect(judged).toMatchObject({ action: 'confirm', confidence: 90, level: 'high', adjustments: [] });
  });

  it('refuses a branch at the maximum depth or without two sub-hypotheses', () => {
    const branch = evaluationOf({
      action: 'branch',
      findings: [{ finding: 'a', evidence_ids: ['ev-1'], strength: 'strong' }],
      sub_hypotheses: [
        { statement: 's', category: 'dependency', confirming_evidence: 'c', refuting_evidence: 'r' },
      ],
    });
    expect(judgeEvaluation(branch, ledger, { canBranch: true }).action).toBe('continue');
    const two = {
      ...branch,
      sub_hypotheses: [...(branch.sub_hypotheses ?? []), ...(branch.sub_hypotheses ?? [])],
    };
    expect(judgeEvaluation(two, ledger, { canBranch: false }).action).toBe('continue');
    expect(judgeEvaluation(two, ledger, { canBranch: true }).action).toBe('branch');
  });

  it('never raises a claimed level', () => {
    expect(capLevel('low', 3)).toBe('low');
    expect(capLevel('high', 1)).toBe('medium');
    expect(capLevel('high', 0)).toBe('low');
  });
});

const node = (over: Partial<HypothesisNode>): HypothesisNode => ({
  ...(firstNodes({
    hypotheses: [1, 2, 3].map((i) => ({
      statement: `h${i}`,
      category: 'dependency' as const,
      priority: i,
      confirming_evidence: 'c',
      refuting_evidence: 'r',
      suggested_queries: [],
    })),
  })[0] as HypothesisNode),
  ...over,
});

describe('the hypothesis tree', () => {
  it('branches into open sub-hypotheses one level deeper, with ids that do not collide', () => {
    const judged = judgeEvaluation(
      evaluationOf({
        action: 'branch',
        findings: [{ finding: 'a', evidence_ids: ['ev-1'], strength: 'strong' }],
        sub_hypotheses: ['x', 'y'].map((s) => ({
          statement: s,
          category: 'dependency' as const,
          confirming_evidence: 'c',
          refuting_evidence: 'r',
        })),
      }),
      ledger,
      { canBranch: true },
    );
    const nodes = [
      node({ id: 'H1', evaluations: { 1: { round: 1, ...judged, at: 'now' } } }),
      node({ id: 'H1.1', parentId: 'H0', depth: 2, status: 'pruned' }),
    ];
    const merge = mergeRound(nodes, 1);
    expect(merge.updates).toEqual([expect.objectContaining({ id: 'H1', status: 'branched' })]);
    expect(merge.created.map((n) => [n.id, n.parentId, n.depth, n.status])).toEqual([
      ['H1.2', 'H1', 2, 'open'],
      ['H1.3', 'H1', 2, 'open'],
    ]);
  });

  it('records an open hypothesis the round did not evaluate as a gap and keeps it open', () => {
    const merge = mergeRound(
      [node({ id: 'H2', evaluations: { 1: { round: 1, failed: 'timed out', at: 'now' } } })],
      1,
    );
    expect(merge).toEqual({ updates: [], created: [], unevaluated: ['H2'] });
  });

  it('ends the rounds on a confirmation first, then all pruned, then the round, time and cost budgets', () => {
    const budget = { maxRounds: 3, maxMinutes: 10, maxTokens: 1000 };
    const spent = {
      roundsDone: 0,
      startedAt: '2015-01-01T00:00:00Z',
      tokens: 0,
      nowMs: Date.parse('2015-01-01T00:01:00Z'),
    };
    const open = [node({ id: 'H1' })];
    expect(decideRound([node({ status: 'confirmed' }), ...open], { ...spent, tokens: 5000 }, budget)).toEqual(
      { decision: 'conclude', reason: 'confirmed' },
    );
    expect(decideRound([node({ status: 'pruned' })], spent, budget)).toEqual({
      decision: 'conclude',
      reason: 'all_pruned',
    });
    expect(decideRound(open, { ...spent, roundsDone: 3 }, budget)).toEqual({
      decision: 'conclude',
      reason: 'round_budget',
    });
    expect(decideRound(open, { ...spent, nowMs: Date.parse('2015-01-01T00:10:00Z') }, budget)).toEqual({
      decision: 'conclude',
      reason: 'time_budget',
    });
    expect(decideRound(open, { ...spent, tokens: 1000 }, budget)).toEqual({
      decision: 'conclude',
      reason: 'cost_budget',
    });
    expect(decideRound(open, spent, budget)).toEqual({ decision: 'investigate' });
  });

  it('ends the rounds on the money budget when one is set, from the ledger cost in micro-dollars', () => {
    const spent = {
      roundsDone: 0,
      startedAt: '2015-01-01T00:00:00Z',
      tokens: 10,
      nowMs: Date.parse('2015-01-01T00:01:00Z'),
    };
    const budget = { maxRounds: 3, maxMinutes: 10, maxTokens: 1000, maxCostUsd: 0.25 };
    const open = [node({ id: 'H1' })];
    expect(decideRound(open, { ...spent, costMicroUsd: 249_999 }, budget)).toEqual({
      decision: 'investigate',
    });
    expect(decideRound(open, { ...spent, costMicroUsd: 250_000 }, budget)).toEqual({
      decision: 'conclude',
      reason: 'money_budget',
    });
    const { maxCostUsd: _none, ...tokensOnly } = budget;
    expect(decideRound(open, { ...spent, costMicroUsd: 9_000_000 }, tokensOnly)).toEqual({
      decision: 'investigate',
    });
  });

  it('investigates open hypotheses by priority, then the shallower first', () => {
    const order = openInOrder([
      node({ id: 'H2', priority: 2 }),
      node({ id: 'H1.1', priority: 1, depth: 2 }),
      node({ id: 'H3', priority: 1 }),
      node({ id: 'H4', priority: 1, status: 'pruned' }),
    ]);
    expect(order.map((n) => n.id)).toEqual(['H3', 'H1.1', 'H2']);
  });
});
