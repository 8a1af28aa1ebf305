import type { Trigger } from '../../lambdas/kernel/workflows.ts';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';

/**
 * How incidents begin: `/investigate <description, alarm name or PagerDuty incident id>`, and
 * the alerts of the configured services (a CloudWatch alarm going into ALARM through
 * EventBridge, a PagerDuty `incident.triggered`), each through the kernel's alert ingress.
 */
export function incidentTriggers(settings: IncidentInvestigationSettings): Trigger[] {
  const alarms = settings.services.flatMap((s) => s.alarmNames);
  const prefixes = settings.services.flatMap((s) => s.alarmPrefixes);
  const pagerDuty = settings.services.flatMap((s) => s.pagerDutyServices);
  return [
    {
      type: 'slash_command',
      command: '/investigate',
      description:
        'Investigate an incident: hypotheses tested against telemetry, a cited conclusion, approved fixes',
      usageHint: '<description, alarm name or PagerDuty incident id>',
    },
    ...(alarms.length + prefixes.length > 0
      ? [
          {
            type: 'alert' as const,
            source: 'cloudwatch' as const,
            ...(alarms.length > 0 ? { names: alarms } : {}),
            ...(prefixes.length > 0 ? { namePrefixes: prefixes } : {}),
          },
        ]
      : []),
    ...(pagerDuty.length > 0
      ? [{ type: 'alert' as const, source: 'pagerduty' as const, names: pagerDuty }]
      : []),
  ];
}
