import * as z from 'zod';
import {
  CitedFinding,
  type ConfidenceLevel,
  type EvaluationAction,
  type EvaluationResult,
  type EvidenceStrength,
} from './contract.ts';

/**
 * The evidence rules, held by code (Rootly discards uncited findings and
 * caps confidence in code, not in the model): a finding must cite evidence ids that the data
 * tools returned in this conversation (the evidence ledger); an uncited finding, or one citing
 * only ids no tool returned, is dropped and the drop recorded; `confirm` and `branch` need at
 * least one strong cited finding; confidence is capped by how many distinct sources the kept
 * findings rest on (no `high` from a single source).
 */

/** One tool result in the evidence ledger, as the rules need it. */
export const EvidenceRecord = z.object({
  id: z.string().min(1),
  /** The data tool that returned it, e.g. `query_logs`. */
  tool: z.string().min(1),
  /** Where the data came from, e.g. `cloudwatch_logs:/ecs/payment-api`: distinct sources count. */
  source: z.string().min(1),
  /** A one-line description of the query (shown beside citations). */
  summary: z.string().default(''),
});
export type EvidenceRecord = z.infer<typeof EvidenceRecord>;

/**
 * A finding that survived the rules: its valid citations and the sources behind them. One
 * schema for every record that keeps one (a node's evaluation, the conclusion).
 */
export const KeptFinding = z.object({
  finding: z.string(),
  strength: CitedFinding.shape.strength,
  evidenceIds: z.array(z.string()),
  sources: z.array(z.string()),
});
export type KeptFinding = z.infer<typeof KeptFinding>;

/** What the rules removed, and why (stored with the evaluation and the conclusion, and shown). */
export const Drop = z.object({
  finding: z.string(),
  /** The ids it cited that no tool returned (all of them when the finding was dropped). */
  evidenceIds: z.array(z.string()),
  /** `finding`: the finding is gone; `citation`: only these ids were removed from a kept finding. */
  dropped: z.enum(['finding', 'citation']),
  reason: z.string(),
});
export type Drop = z.infer<typeof Drop>;

export interface CheckedFindings {
  kept: KeptFinding[];
  drops: Drop[];
}

/** Keeps findings with at least one valid citation; records every removed finding and citation. */
export function checkFindings(
  findings: readonly CitedFinding[],
  ledger: ReadonlyMap<string, EvidenceRecord>,
): CheckedFindings {
  const kept: KeptFinding[] = [];
  const drops: Drop[] = [];
  for (const f of findings) {
    const ids = [...new Set(f.evidence_ids)];
    const valid = ids.filter((id) => ledger.has(id));
    const unknown = ids.filter((id) => !ledger.has(id));
    if (ids.length === 0) {
      drops.push({ finding: f.finding, evidenceIds: [], dropped: 'finding', reason: 'cites no evidence' });
      continue;
    }
    if (valid.length === 0) {
      drops.push({
        finding: f.finding,
        evidenceIds: unknown,
        dropped: 'finding',
        reason: `cites only evidence ids no tool returned in this investigation: ${unknown.join(', ')}`,
      });
      continue;
    }
    if (unknown.length > 0) {
      drops.push({
        finding: f.finding,
        evidenceIds: unknown,
        dropped: 'citation',
        reason: `evidence ids no tool returned were removed: ${unknown.join(', ')}`,
      });
    }
    const sources = [...new Set(valid.map((id) => ledger.get(id)?.source ?? ''))].filter(Boolean);
    kept.push({ finding: f.finding, strength: f.strength, evidenceIds: valid, sources });
  }
  return { kept, drops };
}

/** Distinct sources behind the kept findings that support (strong or weak) the claim. */
export function supportingSources(kept: readonly KeptFinding[]): number {
  return new Set(kept.filter((k) => k.strength !== 'contradicting').flatMap((k) => k.sources)).size;
}

/** The highest confidence the evidence allows: none -> low, one source -> medium, two or more -> high. */
export function confidenceCeiling(sources: number): { level: ConfidenceLevel; score: number } {
  if (sources === 0) return { level: 'low', score: 30 };
  if (sources === 1) return { level: 'medium', score: 69 };
  return { level: 'high', score: 100 };
}

const LEVELS: readonly ConfidenceLevel[] = ['low', 'medium', 'high'];

/** The lower of a claimed level and the evidence's ceiling. */
export function capLevel(claimed: ConfidenceLevel, sources: number): ConfidenceLevel {
  const ceiling = confidenceCeiling(sources).level;
  return LEVELS.indexOf(claimed) <= LEVELS.indexOf(ceiling) ? claimed : ceiling;
}

/** A score's level: 70 and above high, 40 and above medium. */
export function levelOf(score: number): ConfidenceLevel {
  if (score >= 70) return 'high';
  if (score >= 40) return 'medium';
  return 'low';
}

/** An evaluation after the rules: what the model claimed, what stands, and every change made. */
export interface JudgedEvaluation {
  claimedStrength: EvidenceStrength;
  strength: EvidenceStrength;
  claimedAction: EvaluationAction;
  action: EvaluationAction;
  claimedConfidence: number;
  confidence: number;
  level: ConfidenceLevel;
  reasoning: string;
  findings: KeptFinding[];
  drops: Drop[];
  /** Why the rules changed the model's strength, action or confidence, in words. */
  adjustments: string[];
  subHypotheses: NonNullable<EvaluationResult['sub_hypotheses']>;
}

/** Applies the rules to one evaluation; `canBranch` is false at the tree's maximum depth. */
export function judgeEvaluation(
  result: EvaluationResult,
  ledger: ReadonlyMap<string, EvidenceRecord>,
  options: { canBranch: boolean },
): JudgedEvaluation {
  const { kept, drops } = checkFindings(result.findings, ledger);
  const adjustments: string[] = [];
  const strong = kept.filter((k) => k.strength === 'strong').length;
  const weak = kept.filter((k) => k.strength === 'weak').length;
  const contradicting = kept.filter((k) => k.strength === 'contradicting').length;

  let strength = result.evidence_strength;
  if (strength === 'strong' && strong === 0) {
    strength = weak > 0 ? 'weak' : 'none';
    adjustments.push(`strength lowered from strong to ${strength}: no strong finding with a valid citation`);
  } else if (strength === 'weak' && strong + weak === 0) {
    strength = 'none';
    adjustments.push('strength lowered from weak to none: no supporting finding with a valid citation');
  } else if (strength === 'contradicting' && contradicting === 0) {
    strength = 'none';
    adjustments.push(
      'strength changed from contradicting to none: no contradicting finding with a valid citation',
    );
  }

  let action = result.action;
  if (action === 'confirm' && strong === 0) {
    action = 'continue';
    adjustments.push('confirm refused: it needs at least one strong finding with a valid citation');
  }
  const subHypotheses = result.sub_hypotheses ?? [];
  if (action === 'branch') {
    if (strong === 0) {
      action = 'continue';
      adjustments.push('branch refused: it needs at least one strong finding with a valid citation');
    } else if (subHypotheses.length < 2) {
      action = 'continue';
      adjustments.push('branch refused: it needs 2 or 3 sub-hypotheses');
    } else if (!options.canBranch) {
      action = 'continue';
      adjustments.push('branch refused: the hypothesis tree is at its maximum depth');
    }
  }

  const sources = supportingSources(kept);
  const ceiling = confidenceCeiling(sources);
  const confidence = Math.min(result.confidence, ceiling.score);
  if (confidence < result.confidence) {
    adjustments.push(
      `confidence capped from ${result.confidence} to ${confidence}: the kept findings rest on ${sources} distinct source${sources === 1 ? '' : 's'}`,
    );
  }
  return {
    claimedStrength: result.evidence_strength,
    strength,
    claimedAction: result.action,
    action,
    claimedConfidence: result.confidence,
    confidence,
    level: capLevel(levelOf(confidence), sources),
    reasoning: result.reasoning,
    findings: kept,
    drops,
    adjustments,
    subHypotheses: action === 'branch' ? subHypotheses : [],
  };
}
