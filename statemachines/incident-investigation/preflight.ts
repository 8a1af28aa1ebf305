import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { ModulePreflight } from '../module-preflight.ts';

/**
 * What the incident investigation's deploy needs beyond the stack: with a service whose
 * PagerDuty incidents open investigations, the PagerDuty webhook's signing secret and its
 * subscription; with Datadog or PagerDuty among the telemetry sources, their API credentials.
 */
export function incidentPreflight(settings: IncidentInvestigationSettings): ModulePreflight {
  const pagerDuty = settings.services.some((service) => service.pagerDutyServices.length > 0);
  const { sources } = settings.telemetry;
  return {
    secrets: [
      ...(pagerDuty
        ? [
            {
              output: 'PagerDutyWebhookSecretName',
              content: '{"secret":"<the V3 subscription signing secret>"}',
            },
          ]
        : []),
      ...(sources.datadog.enabled
        ? [{ output: 'DatadogCredentialsSecretArn', content: '{"apiKey":"<32 hex>","appKey":"<40 hex>"}' }]
        : []),
      ...(sources.pagerduty.enabled
        ? [{ output: 'PagerDutyApiCredentialsSecretArn', content: '{"token":"<REST API key>"}' }]
        : []),
    ],
    steps: pagerDuty
      ? ['PagerDuty: a Generic Webhook (V3) subscription to "$(out PagerDutyWebhookUrl)"']
      : [],
  };
}
