import { createLogger } from '../../../shared/logger.ts';
import { SkillInvocation } from '../adapters/skill-runner.ts';

const logger = createLogger('incident-demo-skill');

/**
 * The module's demo skill: a labelled stand-in target for the sandbox (and a template for a
 * real skill Lambda). It changes nothing anywhere: it answers what it would have done. With
 * the parameter `simulate=failure` it fails, so approval, failure and rollback can be shown.
 */
export async function handler(event: unknown): Promise<{ ok: boolean; detail: string }> {
  const input = SkillInvocation.parse(event);
  const params = Object.entries(input.parameters)
    .filter(([k]) => k !== 'simulate')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  logger.info('demo skill called', { action: input.action, skill: input.skill, step: input.step });
  if (input.action === 'apply' && input.parameters.simulate === 'failure') {
    return { ok: false, detail: `[demo skill] ${input.skill} failed as asked (simulate=failure)` };
  }
  const what = input.action === 'apply' ? 'applied' : 'rolled back';
  return {
    ok: true,
    detail: `[demo skill] ${input.skill} ${what}${params ? ` with ${params}` : ''}; nothing real was changed`,
  };
}
