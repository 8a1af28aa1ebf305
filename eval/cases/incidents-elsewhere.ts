import { type IncidentCase, incident } from './incident-case.ts';

/** Incidents caused outside our changes (a provider, capacity, a certificate, a neighbour), a red herring, and two whose data holds no cause. */
export const CAUSED_ELSEWHERE: IncidentCase[] = [
  incident({
    id: 'incident/provider-slow',
    title: 'The external payment provider slows down; nothing of ours changed',
    request: 'payment latency alarm on payment-api',
    scenario: {
      seed: 12,
      effects: [
        {
          service: 'payment-api',
          fromMinutesAgo: 35,
          latencyFactor: 8,
          rampMinutes: 5,
          errorShare: 0.12,
          errorLine:
            'provider request timed out after 8000ms op=charge provider=acmepay status=upstream_timeout',
          gauges: { ProviderLatencyMs: 1900, ProviderTimeouts: 9 },
          warn: { line: 'acmepay status page reports degraded performance in eu-west', everyMinutes: 10 },
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['acmepay', 'acmepay (external)', 'payment provider'],
      change: { kinds: ['dependency'], names: ['degrad', 'slow', 'timeout'] },
      evidence: ['ProviderLatencyMs', 'status page reports degraded'],
    },
  }),
  incident({
    id: 'incident/certificate-expiry',
    title: 'The auth service’s TLS certificate expires',
    request: 'logins and checkout failing, auth errors everywhere',
    scenario: {
      seed: 16,
      lines: [
        {
          service: 'auth',
          minutesAgo: 200,
          level: 'warn',
          line: 'certificate auth.internal expires in 2h (notAfter 2026-11-27T00:00:00Z)',
        },
      ],
      effects: [
        {
          service: 'auth',
          fromMinutesAgo: 20,
          errorShare: 0.9,
          errorLine:
            'TLS handshake failed: x509: certificate has expired or is not yet valid (auth.internal)',
          gauges: { TlsErrors: 40 },
        },
        {
          service: 'checkout',
          fromMinutesAgo: 20,
          errorShare: 0.5,
          errorLine: 'token verification failed: auth answered TLS error x509 certificate has expired',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['auth'],
      change: { kinds: ['certificate', 'configuration'], names: ['certificate', 'cert', 'x509', 'tls'] },
      evidence: ['TlsErrors', 'expires in 2h', 'x509: certificate has expired'],
    },
  }),
  incident({
    id: 'incident/noisy-neighbour',
    title: 'A reports job saturates the shared search cluster',
    request: 'product search very slow',
    scenario: {
      seed: 17,
      lines: [
        {
          service: 'reports',
          minutesAgo: 33,
          level: 'info',
          line: 'job started: full-catalog-reindex-export (ad hoc, requested by analytics) on search-cluster',
        },
      ],
      effects: [
        { service: 'reports', fromMinutesAgo: 33, gauges: { JobsRunning: 6 } },
        {
          service: 'search',
          fromMinutesAgo: 32,
          latencyFactor: 15,
          rampMinutes: 3,
          gauges: { ClusterCpuPercent: 97 },
          warn: {
            line: 'search-cluster: query queue rejected 120 requests (thread pool full)',
            everyMinutes: 3,
          },
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['reports', 'full-catalog-reindex-export'],
      change: { kinds: ['workload', 'capacity'], names: ['reindex', 'export', 'job'] },
      evidence: ['full-catalog-reindex-export', 'JobsRunning'],
    },
  }),
  incident({
    id: 'incident/red-herring-deploy',
    title: 'A harmless checkout deploy right before the session cache fills up',
    request: 'checkout latency up, carts being lost',
    scenario: {
      seed: 18,
      deploys: [
        {
          service: 'checkout',
          minutesAgo: 25,
          version: '2026.11.26-b00b1e5',
          startLines: ['config loaded: ui.banner=winter-sale'],
        },
      ],
      effects: [
        {
          service: 'session-cache',
          fromMinutesAgo: 22,
          gauges: { MemoryUsedPercent: 100, Evictions: 1800, HitRate: 0.41 },
          warn: { line: 'maxmemory reached, evicting keys with allkeys-lru', everyMinutes: 1 },
        },
        {
          service: 'checkout',
          fromMinutesAgo: 22,
          latencyFactor: 3,
          errorShare: 0.06,
          errorLine: 'cart not found in session-cache (evicted?) session rebuilt from db in {ms}ms',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['session-cache', 'redis'],
      change: { kinds: ['capacity', 'configuration'], names: ['maxmemory', 'evict', 'memory'] },
      evidence: ['maxmemory', 'Evictions'],
    },
  }),
  incident({
    id: 'incident/disk-full',
    title: 'The orders database runs out of disk',
    request: 'orders failing to save',
    scenario: {
      seed: 19,
      effects: [
        {
          service: 'orders-db',
          fromMinutesAgo: 150,
          toMinutesAgo: 15,
          gauges: { DiskUsedPercent: [80, 100] },
        },
        {
          service: 'orders-db',
          fromMinutesAgo: 15,
          errorShare: 0.4,
          errorLine: 'ERROR: could not extend file "base/16384/24576": No space left on device',
          gauges: { DiskUsedPercent: 100 },
        },
        {
          service: 'inventory',
          fromMinutesAgo: 15,
          errorShare: 0.3,
          errorLine: 'insert into reservations failed: orders-db error 53100 disk full',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['orders-db', 'postgres', 'orders database'],
      change: { kinds: ['capacity'], names: ['disk', 'space', 'storage'] },
      evidence: ['No space left on device', 'DiskUsedPercent'],
    },
  }),
  incident({
    id: 'incident/retry-storm',
    title: 'A marketing push trips the provider’s rate limit',
    request: 'payment errors spiking, 429s?',
    scenario: {
      seed: 21,
      lines: [
        {
          service: 'checkout',
          minutesAgo: 31,
          level: 'info',
          line: 'campaign black-friday-push started: traffic multiplier expected x4',
        },
      ],
      effects: [
        { service: 'checkout', fromMinutesAgo: 30, latencyFactor: 1.5 },
        {
          service: 'payment-api',
          fromMinutesAgo: 29,
          errorShare: 0.4,
          errorLine:
            'provider answered 429 Too Many Requests (rate limit 200 rps) op=charge provider=acmepay',
        },
      ],
    },
    truth: {
      outcome: 'root_cause',
      component: ['acmepay', 'acmepay (external)', 'payment-api'],
      change: { kinds: ['workload', 'dependency'], names: ['rate limit', '429', 'traffic', 'campaign'] },
      evidence: ['black-friday-push'],
    },
  }),
  incident({
    id: 'incident/no-cause-quiet',
    title: 'An alarm with nothing behind it in the data',
    request: 'someone says checkout felt slow ten minutes ago',
    scenario: { seed: 22 },
    truth: {
      outcome: 'inconclusive',
      mustCheck: [
        { tool: 'query_metrics', service: 'checkout' },
        { tool: 'query_logs', service: 'checkout' },
        { tool: 'recent_deployments', service: 'checkout' },
      ],
    },
  }),
  incident({
    id: 'incident/no-cause-blip',
    title: 'A short error blip with no trace of a cause',
    request: 'search errors for a few minutes, gone now?',
    scenario: {
      seed: 23,
      effects: [
        {
          service: 'search',
          fromMinutesAgo: 40,
          toMinutesAgo: 37,
          errorShare: 0.05,
          errorLine: 'request failed: upstream reset',
        },
      ],
    },
    truth: {
      outcome: 'inconclusive',
      mustCheck: [
        { tool: 'query_logs', service: 'search' },
        { tool: 'query_metrics', service: 'search' },
        { tool: 'recent_deployments', service: 'search' },
      ],
    },
  }),
];
