import type { IncidentInvestigationSettingsInput } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { TelemetryConfigInput } from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';

/**
 * The services every incident case's telemetry describes: one service map for all cases, so the
 * stack is synthesized once for them (each case seeds its own logs, metrics and deployments).
 */

export const EVAL_NAMESPACE = 'Shop/Services';

export const EVAL_SERVICES = {
  checkout: {
    description:
      'Web checkout: cart and order placement; calls payment-api, inventory, session-cache and auth',
    dependencies: ['payment-api', 'inventory', 'session-cache', 'auth'],
    extras: {},
    latencyMs: 180,
  },
  'payment-api': {
    description: 'Payment authorization; calls the external payment provider (AcmePay)',
    dependencies: ['acmepay (external)'],
    extras: { ProviderTimeouts: 0, ProviderLatencyMs: 140 },
    latencyMs: 170,
  },
  inventory: {
    description: 'Stock levels and reservations; reads and writes orders-db through a connection pool',
    dependencies: ['orders-db'],
    extras: { MemoryUsedPercent: 48, Restarts: 0, PoolWaitMs: 2 },
    latencyMs: 45,
  },
  'orders-db': {
    description: 'PostgreSQL database of orders and stock',
    dependencies: [],
    extras: { Connections: 40, DiskUsedPercent: 61, CpuPercent: 22 },
    latencyMs: 4,
  },
  'session-cache': {
    description: 'Redis cache of sessions and carts',
    dependencies: [],
    extras: { HitRate: 0.97, Evictions: 0, MemoryUsedPercent: 70 },
    latencyMs: 1,
  },
  auth: {
    description: 'Token service: issues and verifies session tokens over mutual TLS',
    dependencies: [],
    extras: { TlsErrors: 0 },
    latencyMs: 25,
  },
  search: {
    description: 'Product search API on the shared search cluster',
    dependencies: ['search-cluster (shared with reports)'],
    extras: { ClusterCpuPercent: 35 },
    latencyMs: 60,
  },
  reports: {
    description: 'Nightly and ad-hoc reporting jobs; they run on the shared search cluster',
    dependencies: ['search-cluster (shared with search)'],
    extras: { JobsRunning: 0 },
    latencyMs: 900,
  },
} as const;

export type EvalService = keyof typeof EVAL_SERVICES;
export const EVAL_SERVICE_NAMES = Object.keys(EVAL_SERVICES) as EvalService[];

export const logGroupOf = (service: EvalService) => `/ecs/prod/${service}`;
export const stackOf = (service: EvalService) => `${service}-prod`;

export const EVAL_TELEMETRY_CONFIG = {
  services: EVAL_SERVICE_NAMES.map((name) => ({
    name,
    description: EVAL_SERVICES[name].description,
    logGroups: [logGroupOf(name)],
    metrics: {
      namespace: EVAL_NAMESPACE,
      dimensions: { Service: name },
      names: ['LatencyMs', 'Errors', 'Requests', ...Object.keys(EVAL_SERVICES[name].extras)],
    },
    stacks: [stackOf(name)],
    dependencies: [...EVAL_SERVICES[name].dependencies],
  })),
} satisfies TelemetryConfigInput;

/** Mutating demo skills (they change nothing), so a plan can propose them and must wait for approval. */
export const EVAL_INCIDENT_SETTINGS = {
  services: EVAL_SERVICE_NAMES.map((name) => ({ name, alarmPrefixes: [`${name}-`] })),
  runbooks: [],
  skills: [
    {
      name: 'rollback_deployment',
      description:
        'Rolls a service (parameter service) back to its previous deployment. Demo skill: changes nothing.',
      target: { type: 'demo' },
      mutating: true,
    },
    {
      name: 'restart_service',
      description: 'Restarts the tasks of a service (parameter service). Demo skill: changes nothing.',
      target: { type: 'demo' },
      mutating: true,
    },
  ],
} satisfies IncidentInvestigationSettingsInput;
