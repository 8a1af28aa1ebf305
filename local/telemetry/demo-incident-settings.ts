import type { IncidentInvestigationSettingsInput } from '../../lambdas/workflows/incident-investigation/config.ts';

/**
 * The incident investigation's sandbox settings (`npm run dev`): the demo incident's services,
 * a runbook for payment provider timeouts, and two demo skills (the module's labelled demo
 * skill function: they change nothing) so a plan can be approved, run, and rolled back.
 */
/** The alarm name prefixes of the demo services (the stack's alarm rule must route them). */
export const DEMO_INCIDENT_ALARM_PREFIXES = ['checkout-', 'payment-api-'];

export const DEMO_INCIDENT_SETTINGS = {
  services: [
    { name: 'checkout', alarmPrefixes: ['checkout-'] },
    { name: 'payment-api', alarmPrefixes: ['payment-api-'], pagerDutyServices: ['payment-api'] },
    { name: 'session-cache' },
  ],
  runbooks: [
    {
      name: 'payment-provider-timeouts',
      title: 'Payment provider timeouts after a deploy',
      matches: ['payment-api', 'provider', 'timeout'],
      steps: [
        'Roll payment-api back to its previous deployment',
        'Watch provider timeouts and checkout latency for 15 minutes',
      ],
      skills: ['rollback_deployment'],
    },
  ],
  skills: [
    {
      name: 'rollback_deployment',
      description:
        'Rolls a service (parameter service) back to its previous deployment. Demo skill: changes nothing.',
      target: { type: 'demo' },
      mutating: true,
      rollbackSkill: 'restore_deployment',
    },
    {
      name: 'restore_deployment',
      description: 'Restores the deployment a rollback replaced. Demo skill: changes nothing.',
      target: { type: 'demo' },
      mutating: true,
    },
  ],
} satisfies IncidentInvestigationSettingsInput;
