import { type IncidentCase, incident } from './incident-case.ts';

/** Incidents a change of ours caused: a deploy, a configuration, a feature flag. */
export const CAUSED_BY_CHANGES: IncidentCase[] = [
  incident({
    id: 'incident/deploy-regression',
    title: 'A payment-api deploy shortens the provider timeout',
    request: 'checkout payments failing and slow since about 45 minutes ago',
    scenario: {
      seed: 11,
      deploys: [
        {
          service: 'payment-api',
          minutesAgo: 47,
          version: '2026.11.26-7f3e2d1',
          startLines: ['config loaded: provider=acmepay provider.timeoutMs=2000 provider.maxRetries=3'],
        },
      ],
      effects: [
        {
          service: 'payment-api',
          fromMinutesAgo: 45,
          latencyFactor: 12,
          errorShare: 0.3,
          errorLine: 'provider request timed out after 2000ms op=charge provider=acmepay attempt=3/3',
          gauges: { ProviderTimeouts: 30 },
        },
        {
          service: 'checkout',
          fromMinutesAgo: 45,
          latencyFactor: 9,
          errorShare: 0.3,
          errorLine: 'payment authorization failed: payment-api answered 504 after {ms}ms',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['payment-api'],
      change: { kinds: ['deploy', 'configuration'], names: ['7f3e2d1', 'timeoutMs', 'timeout'] },
      evidence: ['7f3e2d1', 'provider.timeoutMs=2000', 'UPDATE_COMPLETE'],
    },
  }),
  incident({
    id: 'incident/memory-leak',
    title: 'An inventory deploy leaks memory until tasks are OOM-killed',
    request: 'inventory restarting, checkout stock checks erroring',
    scenario: {
      seed: 13,
      deploys: [{ service: 'inventory', minutesAgo: 110, version: '2026.11.26-c0ffee1' }],
      effects: [
        { service: 'inventory', fromMinutesAgo: 110, gauges: { MemoryUsedPercent: [50, 99] } },
        {
          service: 'inventory',
          fromMinutesAgo: 30,
          errorShare: 0.15,
          errorLine: 'task stopped: OutOfMemoryError: Container killed due to memory usage (exit 137)',
          gauges: { Restarts: 3, MemoryUsedPercent: 98 },
        },
        {
          service: 'checkout',
          fromMinutesAgo: 30,
          errorShare: 0.08,
          errorLine: 'stock check failed: inventory connection reset',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['inventory'],
      change: { kinds: ['deploy', 'capacity'], names: ['c0ffee1', 'memory', 'leak', 'oom'] },
      evidence: ['c0ffee1', 'MemoryUsedPercent', 'UPDATE_COMPLETE'],
    },
  }),
  incident({
    id: 'incident/pool-exhaustion',
    title: 'A config change shrinks inventory’s database pool',
    request: 'inventory slow, requests timing out waiting for the database',
    scenario: {
      seed: 14,
      deploys: [
        {
          service: 'inventory',
          minutesAgo: 40,
          version: '2026.11.26-9a8b7c6',
          startLines: ['config loaded: db.pool.max=5 db.pool.acquireTimeoutMs=3000 (was db.pool.max=50)'],
        },
      ],
      effects: [
        {
          service: 'inventory',
          fromMinutesAgo: 38,
          latencyFactor: 20,
          errorShare: 0.25,
          errorLine: 'timeout acquiring connection from pool after 3000ms (pool max=5, waiting=41)',
          gauges: { PoolWaitMs: 2800 },
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['inventory'],
      change: { kinds: ['deploy', 'configuration', 'capacity'], names: ['db.pool.max', 'pool'] },
      evidence: ['db.pool.max=5', 'acquiring connection', 'PoolWaitMs'],
    },
  }),
  incident({
    id: 'incident/feature-flag',
    title: 'Turning on a feature flag breaks checkout pricing',
    request: 'checkout 500s on order placement',
    scenario: {
      seed: 15,
      lines: [
        {
          service: 'checkout',
          minutesAgo: 26,
          level: 'info',
          line: 'feature flag new_pricing_engine changed: off -> on (100% of traffic) by flags-admin',
        },
      ],
      effects: [
        {
          service: 'checkout',
          fromMinutesAgo: 25,
          errorShare: 0.35,
          errorLine:
            "TypeError: Cannot read properties of undefined (reading 'taxRate') at PricingEngineV2.price",
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['checkout', 'pricing engine', 'PricingEngineV2'],
      change: { kinds: ['feature_flag', 'configuration'], names: ['new_pricing_engine', 'flag'] },
      evidence: ['new_pricing_engine'],
    },
  }),
  incident({
    id: 'incident/bad-endpoint-config',
    title: 'A payment-api deploy points at a wrong provider host',
    request: 'every payment failing right now',
    scenario: {
      seed: 20,
      deploys: [
        {
          service: 'payment-api',
          minutesAgo: 18,
          version: '2026.11.26-e11d0a4',
          startLines: ['config loaded: provider=acmepay provider.url=https://api.acmepay.exmaple.com/v2'],
        },
      ],
      effects: [
        {
          service: 'payment-api',
          fromMinutesAgo: 17,
          errorShare: 0.97,
          errorLine: 'getaddrinfo ENOTFOUND api.acmepay.exmaple.com op=charge',
        },
        {
          service: 'checkout',
          fromMinutesAgo: 17,
          errorShare: 0.9,
          errorLine: 'payment authorization failed: payment-api answered 502',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['payment-api'],
      change: {
        kinds: ['deploy', 'configuration'],
        names: ['exmaple', 'provider.url', 'url', 'host', 'endpoint', 'dns', 'enotfound'],
      },
      evidence: ['exmaple'],
    },
  }),
];
