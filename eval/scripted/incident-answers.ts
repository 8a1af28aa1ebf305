import type { ChangeKind } from '../../lambdas/workflows/incident-investigation/contract.ts';

/**
 * Per incident case: the change a responder who found the cause would write, and the plausible
 * wrong answer next to it (the component beside the cause, with its own story), as scripted
 * answers submit them.
 */

interface Wrong {
  component: string;
  kind: ChangeKind;
  change: string;
}

export const RIGHT_CHANGE: Record<string, string> = {
  'incident/deploy-regression':
    'deploy 2026.11.26-7f3e2d1 cut provider.timeoutMs to 2000, so charges time out before AcmePay answers',
  'incident/memory-leak': 'the c0ffee1 release leaks memory until the tasks are OOM-killed',
  'incident/pool-exhaustion':
    'a configuration change set db.pool.max=5 (was 50): requests wait for a connection',
  'incident/feature-flag':
    'new_pricing_engine turned on for all traffic; PricingEngineV2 reads an undefined taxRate',
  'incident/bad-endpoint-config':
    'the deploy set provider.url to api.acmepay.exmaple.com, a host that does not exist',
  'incident/provider-slow': 'AcmePay is degraded in eu-west and answers slowly; nothing of ours changed',
  'incident/certificate-expiry': 'the auth.internal TLS certificate expired; every handshake fails with x509',
  'incident/noisy-neighbour': 'an ad hoc full-catalog-reindex-export job saturates the shared search cluster',
  'incident/red-herring-deploy': 'session-cache reached maxmemory and evicts carts (allkeys-lru)',
  'incident/disk-full': 'the orders database ran out of disk space (No space left on device)',
  'incident/retry-storm':
    'the black-friday-push campaign quadrupled traffic past AcmePay’s 200 rps rate limit',
};

export const ADJACENT: Record<string, Wrong> = {
  'incident/deploy-regression': {
    component: 'acmepay',
    kind: 'dependency',
    change: 'AcmePay is degraded: payment-api sees provider timeouts',
  },
  'incident/memory-leak': {
    component: 'orders-db',
    kind: 'capacity',
    change: 'orders-db resets inventory connections',
  },
  'incident/pool-exhaustion': {
    component: 'orders-db',
    kind: 'capacity',
    change: 'the database is slow to hand out connections',
  },
  'incident/feature-flag': {
    component: 'payment-api',
    kind: 'dependency',
    change: 'payment-api returns bad tax data',
  },
  'incident/bad-endpoint-config': { component: 'acmepay', kind: 'dependency', change: 'AcmePay DNS outage' },
  'incident/provider-slow': {
    component: 'payment-api',
    kind: 'deploy',
    change: 'payment-api got slow after a deploy',
  },
  'incident/certificate-expiry': {
    component: 'checkout',
    kind: 'deploy',
    change: 'checkout token verification deploy',
  },
  'incident/noisy-neighbour': {
    component: 'search',
    kind: 'capacity',
    change: 'search cluster CPU too small for the load',
  },
  'incident/red-herring-deploy': {
    component: 'checkout',
    kind: 'deploy',
    change: 'the checkout deploy 2026.11.26-b00b1e5 loses carts and evicts sessions',
  },
  'incident/disk-full': {
    component: 'inventory',
    kind: 'capacity',
    change: 'inventory reservations fail: disk full',
  },
  'incident/retry-storm': { component: 'checkout', kind: 'workload', change: 'checkout campaign traffic' },
};

/** A change naming every cause there is: keyword stuffing. */
export const STUFFED =
  'deploy or config change, feature flag, memory leak (OOM), connection pool, DNS, certificate, disk full, rate limit 429, cache eviction, CPU job, provider degraded, timeouts, traffic surge';
