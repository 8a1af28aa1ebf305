import type { TelemetryConfigInput } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import type { SandboxModule } from '../../statemachines/module-sandbox.ts';

/**
 * The demo incident's three services as the telemetry tools are configured for them (the
 * incident investigation's `telemetry` section): where their logs, metrics and deployments are,
 * and what each depends on (the service map).
 */

export const DEMO_NAMESPACE = 'Demo/Services';

export const DEMO_SERVICES = {
  checkout: { logGroup: '/ecs/checkout', stack: 'checkout-prod' },
  'payment-api': { logGroup: '/ecs/payment-api', stack: 'payment-api-prod' },
  'session-cache': { logGroup: '/ecs/session-cache', stack: 'session-cache-prod' },
} as const;

export type DemoService = keyof typeof DEMO_SERVICES;

const metricsOf = (service: DemoService, names: string[]) => ({
  namespace: DEMO_NAMESPACE,
  dimensions: { Service: service },
  names,
});

export const DEMO_TELEMETRY_CONFIG = {
  services: [
    {
      name: 'checkout',
      description: 'Web checkout: cart, order placement; calls payment-api to authorize payments',
      logGroups: [DEMO_SERVICES.checkout.logGroup],
      metrics: metricsOf('checkout', ['LatencyMs', 'Errors', 'Requests']),
      stacks: [DEMO_SERVICES.checkout.stack],
      dependencies: ['payment-api', 'session-cache'],
    },
    {
      name: 'payment-api',
      description: 'Payment authorization; calls the external payment provider (AcmePay)',
      logGroups: [DEMO_SERVICES['payment-api'].logGroup],
      metrics: metricsOf('payment-api', ['LatencyMs', 'Errors', 'Requests', 'ProviderTimeouts']),
      stacks: [DEMO_SERVICES['payment-api'].stack],
      dependencies: ['acmepay (external)'],
    },
    {
      name: 'session-cache',
      description: 'Redis cache of sessions and carts',
      logGroups: [DEMO_SERVICES['session-cache'].logGroup],
      metrics: metricsOf('session-cache', ['LatencyMs', 'HitRate', 'Evictions', 'MemoryUsedPercent']),
      stacks: [DEMO_SERVICES['session-cache'].stack],
      dependencies: [],
    },
  ],
} satisfies TelemetryConfigInput;

/**
 * `config` with the demo incident's services as the telemetry tools' configuration, in the
 * section of the module that holds the `telemetry` field (the one that declares it moved
 * there), unless the configuration sets it already or no module holds it.
 */
export function withDemoTelemetry(
  config: Readonly<Record<string, unknown>>,
  modules: readonly SandboxModule[],
): Record<string, unknown> {
  for (const module of modules) {
    const settings = module.settings;
    const field = settings?.movedFrom?.telemetry;
    if (settings === undefined || field === undefined || 'telemetry' in config) continue;
    const section = config[settings.key];
    if (section !== undefined && (typeof section !== 'object' || section === null || field in section))
      continue;
    return { ...config, [settings.key]: { ...section, [field]: DEMO_TELEMETRY_CONFIG } };
  }
  return { ...config };
}
