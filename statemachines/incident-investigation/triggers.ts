import type { Trigger } from '../../lambdas/kernel/workflows.ts';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { KernelConfig } from '../workflow-module.ts';

/**
 * How incidents begin: `/investigate <description, alarm name or PagerDuty incident id>`, and
 * the alerts of the configured services (a CloudWatch alarm going into ALARM through
 * EventBridge, a PagerDuty `incident.triggered`), each through the kernel's alert ingress.
 */
export function incidentTriggers(config: KernelConfig, settings: IncidentInvestigationSettings): Trigger[] {
  const alarms = settings.services.flatMap((s) => s.alarmNames);
  const prefixes = settings.services.flatMap((s) => s.alarmPrefixes);
  requireAlarmRoute(config, alarms, prefixes);
  const pagerDuty = settings.services.flatMap((s) => s.pagerDutyServices);
  return [
    {
      type: 'slash_command',
      command: '/investigate',
      description:
        'Investigate an incident: hypotheses tested against telemetry, a cited conclusion, approved fixes',
      usageHint: '<description, alarm name or PagerDuty incident id>',
      // An incident named by one of its alarms or its PagerDuty id: a running one is not
      // started twice, and one that was closed may come back; a free description starts its own.
      names: {
        names: [
          { anchor: 'alarm_name', names: alarms, prefixes },
          { anchor: 'alert', source: 'pagerduty' },
        ],
        anchored: false,
        once: false,
      },
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

/**
 * A service's alarms reach the ingress only through the stack's EventBridge rule, which
 * `slackAgents.alarms` configures: an alarm of a service it does not cover would never start an
 * investigation, so the synth fails naming it instead.
 */
function requireAlarmRoute(
  config: KernelConfig,
  names: readonly string[],
  prefixes: readonly string[],
): void {
  const covered = (name: string) =>
    config.alarms.names.includes(name) ||
    config.alarms.namePrefixes.some((prefix) => name.startsWith(prefix));
  const missing = [
    ...names.filter((n) => !covered(n)),
    ...prefixes.filter((p) => !covered(p)).map((p) => `${p}*`),
  ];
  if (missing.length > 0) {
    throw new Error(
      `slackAgents.incidentInvestigation.services name alarms that slackAgents.alarms does not route to the ingress: ${missing.join(', ')} (add them to alarms.names or alarms.namePrefixes)`,
    );
  }
}
