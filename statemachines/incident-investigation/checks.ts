import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { KernelConfig } from '../workflow-module.ts';

/**
 * What the incident investigation's settings need beyond their schema, checked at synth when
 * it is enabled: every service alarm routed to the ingress by `alarms` (else no alarm would
 * ever open an incident), and skills that can run in AWS (the demo skill changes nothing: it is
 * the sandbox's).
 */
export function incidentProblems(
  settings: IncidentInvestigationSettings,
  config: KernelConfig,
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const covered = (name: string) =>
    config.alarms.names.includes(name) ||
    config.alarms.namePrefixes.some((prefix) => name.startsWith(prefix));
  settings.services.forEach((service, index) => {
    const missing = [
      ...service.alarmNames.filter((name) => !covered(name)),
      ...service.alarmPrefixes.filter((prefix) => !covered(prefix)).map((prefix) => `${prefix}*`),
    ];
    if (missing.length > 0)
      problems.push({
        path: `incidentInvestigation.services.${index}`,
        message: `${service.name}'s alarms ${missing.join(', ')} never reach the ingress: add them to alarms.names or alarms.namePrefixes`,
      });
  });
  if (config.sandbox !== true) {
    settings.skills.forEach((skill, index) => {
      if (skill.target.type === 'demo')
        problems.push({
          path: `incidentInvestigation.skills.${index}.target`,
          message: `${skill.name} runs the sandbox's demo skill, which changes nothing: give it a lambda or ssm_automation target`,
        });
    });
  }
  return problems;
}
