import type { RemediationConfig } from './config.ts';
import type { StoredConclusion } from './record.ts';

/**
 * What the remediation agent is told: the conclusion as code kept it, and the skills and
 * runbooks configured (the only skills a step may name), so its plan can match them.
 */
export function remediationNotes(
  conclusion: StoredConclusion | undefined,
  config: RemediationConfig,
): string[] {
  const skills = config.skills.map(
    (s) =>
      `${s.name} (${s.mutating ? 'changes systems: needs approval' : 'read-only'}${s.rollbackSkill ? `, rolled back by ${s.rollbackSkill}` : ''}): ${s.description}`,
  );
  const runbooks = config.runbooks.map((r) => `${r.name} "${r.title}": ${r.steps.join(' / ')}`.slice(0, 600));
  return [
    conclusion
      ? `The conclusion, as checked by code: ${conclusion.outcome === 'root_cause' ? `root cause (${conclusion.confidence})` : 'INCONCLUSIVE'}: ${conclusion.rootCause.slice(0, 800)}`
      : 'There is no conclusion.',
    skills.length > 0
      ? `Configured skills: ${skills.join('; ')}`.slice(0, 2_000)
      : 'No skills are configured: every step is for people.',
    runbooks.length > 0
      ? `Configured runbooks: ${runbooks.join('; ')}`.slice(0, 2_000)
      : 'No runbooks are configured.',
  ];
}
