import type { LocalCloudFormation } from '../cloudformation/api.ts';
import type { LocalLogs } from '../logs/store.ts';
import type { LocalMetrics, MetricId } from '../metrics/store.ts';
import { type DemoStackEvents, demoStackEvents } from './demo-deployments.ts';
import { DEMO_NAMESPACE, DEMO_SERVICES, type DemoService } from './demo-services.ts';
import { hex, seededRandom } from './random.ts';

/**
 * The demo incident the sandbox starts with: three services over the last
 * hours, with a planted cause. At `deployAt` payment-api is deployed (a CloudFormation stack
 * update: new task definition revision, new version, a provider client with a 2 s timeout and
 * 4 connections instead of 8 s and 32); two minutes later its calls to the payment provider
 * start timing out, its latency and errors climb, and checkout, which calls it, slows down and
 * fails payments. Red herrings, as real incidents have: a checkout deploy two hours before
 * (harmless) and a short eviction burst in the session cache an hour before that.
 *
 * Everything follows from `seed` and `now`: the same seed gives the same lines and numbers
 * (timestamps are relative to `now`). Loghub lines, when given, are mixed in as background
 * noise (a host agent's stream in each log group).
 */

export interface DemoIncidentOptions {
  now: number;
  /** @default 3 */
  seed?: number;
  /** How far back the data goes. @default 3 */
  hours?: number;
  /** Minutes before `now` that the payment-api deployment finished. @default 50 */
  deployMinutesAgo?: number;
  /** Background lines (e.g. from Loghub), used in order and repeated. @default none */
  noise?: readonly string[];
}

export interface DemoLogEvent {
  group: string;
  stream: string;
  timestamp: number;
  message: string;
}

export interface DemoIncident {
  logs: DemoLogEvent[];
  metrics: { id: MetricId; time: number; values: number[] }[];
  stackEvents: DemoStackEvents;
  /** What was planted, for tests and the console. */
  facts: {
    deployAt: number;
    spikeStart: number;
    newVersion: string;
    oldVersion: string;
    taskDefinition: string;
    start: number;
    end: number;
  };
}

const MINUTE = 60_000;

export function generateDemoIncident(options: DemoIncidentOptions): DemoIncident {
  const random = seededRandom(options.seed ?? 3);
  const end = Math.floor(options.now / MINUTE) * MINUTE;
  const start = end - (options.hours ?? 3) * 60 * MINUTE;
  const deployAt = end - (options.deployMinutesAgo ?? 50) * MINUTE;
  const spikeStart = deployAt + 2 * MINUTE;
  const checkoutDeployAt = end - 130 * MINUTE;
  const evictionsAt = end - 150 * MINUTE;
  const oldVersion = `2026.11.20-${hex(random, 7)}`;
  const newVersion = `2026.11.23-${hex(random, 7)}`;
  const taskDefinition = 'arn:aws:ecs:us-east-1:000000000000:task-definition/payment-api:42';
  const logs: DemoLogEvent[] = [];
  const metrics: DemoIncident['metrics'] = [];
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const json = (
    service: DemoService,
    time: number,
    level: string,
    msg: string,
    fields: Record<string, unknown> = {},
  ) => JSON.stringify({ time: new Date(time).toISOString(), level, service, msg, ...fields });
  const log = (service: DemoService, stream: string, timestamp: number, message: string) =>
    logs.push({ group: DEMO_SERVICES[service].logGroup, stream, timestamp, message });
  const metric = (service: DemoService, name: string, time: number, values: number[]) =>
    metrics.push({
      id: { namespace: DEMO_NAMESPACE, name, dimensions: [{ Name: 'Service', Value: service }] },
      time,
      values,
    });
  const paymentTask = (t: number) => `payment-api/${t < deployAt ? 'a81f3c' : 'e4b907'}`;
  const checkoutTask = (t: number) => `checkout/${t < checkoutDeployAt ? '5d21aa' : '9c0e47'}`;
  let noiseAt = 0;

  for (let minute = start; minute < end; minute += MINUTE) {
    const degraded = minute >= spikeStart;
    // Timeouts come and go a little, as a provider's do: 25-40% of charges.
    const timeoutShare = degraded ? 0.25 + random() * 0.15 : 0;
    const requests = 36 + Math.floor(random() * 10);
    const checkoutLatency: number[] = [];
    const paymentLatency: number[] = [];
    let checkoutErrors = 0;
    let paymentErrors = 0;
    let providerTimeouts = 0;
    for (let r = 0; r < requests; r++) {
      const t = minute + Math.floor(random() * MINUTE);
      const trace = hex(random, 32);
      const order = `ord_${hex(random, 10)}`;
      const timedOut = random() < timeoutShare;
      const attempts = timedOut ? 3 : 1;
      const providerMs = timedOut ? 2000 : Math.max(60, Math.round(140 + 40 * gauss()));
      const paymentMs = timedOut
        ? 3 * 2000 + Math.round(30 * random())
        : providerMs + Math.round(25 + 10 * random());
      const checkoutMs = paymentMs + Math.max(20, Math.round(110 + 30 * gauss()));
      paymentLatency.push(paymentMs);
      checkoutLatency.push(checkoutMs);
      if (timedOut) {
        providerTimeouts += attempts;
        paymentErrors++;
        checkoutErrors++;
      }
      // Access and domain logs are sampled (one request in four), errors always logged.
      const logged = timedOut || r % 4 === 0;
      if (!logged) continue;
      if (timedOut) {
        for (let attempt = 1; attempt < attempts; attempt++)
          log(
            'payment-api',
            paymentTask(t),
            t + attempt * 2000 - 1000,
            json(
              'payment-api',
              t + attempt * 2000 - 1000,
              'warn',
              `retrying provider request op=charge provider=acmepay attempt=${attempt + 1}/3 after timeout`,
              { trace_id: trace, order_id: order },
            ),
          );
        log(
          'payment-api',
          paymentTask(t),
          t + paymentMs - 5,
          json(
            'payment-api',
            t + paymentMs - 5,
            'error',
            `provider request timed out after 2000ms op=charge provider=acmepay attempt=3/3`,
            { trace_id: trace, order_id: order, pool_in_use: 4, pool_max: 4 },
          ),
        );
        log(
          'checkout',
          checkoutTask(t),
          t + checkoutMs,
          json(
            'checkout',
            t + checkoutMs,
            'error',
            `payment authorization failed: payment-api answered 504 after ${paymentMs}ms`,
            { trace_id: trace, order_id: order, route: 'POST /api/checkout', status: 502 },
          ),
        );
      } else {
        log(
          'payment-api',
          paymentTask(t),
          t + paymentMs,
          json(
            'payment-api',
            t + paymentMs,
            'info',
            `charge authorized op=charge provider=acmepay in ${paymentMs}ms`,
            { trace_id: trace, order_id: order, amount_cents: 500 + Math.floor(random() * 20_000) },
          ),
        );
        log(
          'checkout',
          checkoutTask(t),
          t + checkoutMs,
          json('checkout', t + checkoutMs, 'info', `POST /api/checkout 200 in ${checkoutMs}ms`, {
            trace_id: trace,
            order_id: order,
            route: 'POST /api/checkout',
            status: 200,
          }),
        );
      }
      if (random() < 0.5) {
        const browse = t + Math.floor(random() * 500);
        log(
          'checkout',
          checkoutTask(t),
          browse,
          json('checkout', browse, 'info', `GET /api/cart 200 in ${Math.round(25 + 8 * random())}ms`, {
            trace_id: hex(random, 32),
            route: 'GET /api/cart',
            status: 200,
          }),
        );
      }
    }
    metric('checkout', 'LatencyMs', minute, checkoutLatency);
    metric('checkout', 'Requests', minute, [requests]);
    metric('checkout', 'Errors', minute, [checkoutErrors + (random() < 0.05 ? 1 : 0)]);
    metric('payment-api', 'LatencyMs', minute, paymentLatency);
    metric('payment-api', 'Requests', minute, [requests]);
    metric('payment-api', 'Errors', minute, [paymentErrors]);
    metric('payment-api', 'ProviderTimeouts', minute, [providerTimeouts]);

    // The session cache: steady, but for a short eviction burst well before the incident.
    const evicting = minute >= evictionsAt && minute < evictionsAt + 5 * MINUTE;
    const evicted = evicting
      ? 1200 + Math.floor(random() * 600)
      : random() < 0.1
        ? Math.floor(random() * 5)
        : 0;
    const hitRate = evicting ? 0.9 + random() * 0.02 : 0.965 + random() * 0.01;
    const memory = evicting ? 99 + random() * 0.8 : 71 + random() * 3;
    metric(
      'session-cache',
      'LatencyMs',
      minute,
      Array.from({ length: 20 }, () => Math.max(0.2, 0.8 + 0.15 * gauss())),
    );
    metric('session-cache', 'HitRate', minute, [hitRate]);
    metric('session-cache', 'Evictions', minute, [evicted]);
    metric('session-cache', 'MemoryUsedPercent', minute, [memory]);
    const at = minute + Math.floor(random() * MINUTE);
    const stamp = new Date(at).toISOString();
    log(
      'session-cache',
      'redis/primary',
      at,
      `${stamp} INFO session-cache: ${180 + Math.floor(random() * 40)} clients connected, used_memory=${(memory * 0.0168).toFixed(2)}G, hit_rate=${hitRate.toFixed(3)}, evicted_keys=${evicted}`,
    );
    if (evicting)
      log(
        'session-cache',
        'redis/primary',
        at + 1000,
        `${new Date(at + 1000).toISOString()} WARN session-cache: maxmemory reached, evicting keys with allkeys-lru, evicted_keys=${evicted}`,
      );

    for (let n = 0; n < 2 && options.noise && options.noise.length > 0; n++) {
      const service = pick(Object.keys(DEMO_SERVICES) as DemoService[]);
      const t = minute + Math.floor(random() * MINUTE);
      log(
        service,
        `host-agent/ip-10-0-${1 + Math.floor(random() * 3)}-${10 + Math.floor(random() * 80)}`,
        t,
        options.noise[noiseAt % options.noise.length] ?? '',
      );
      noiseAt++;
    }
  }

  // The deployments' own lines: old tasks draining, new ones starting with their configuration.
  const drain = (service: DemoService, stream: string, t: number, version: string) =>
    log(
      service,
      stream,
      t,
      json(service, t, 'info', `received SIGTERM, draining connections version=${version}`),
    );
  drain('payment-api', paymentTask(deployAt - MINUTE), deployAt - 20_000, oldVersion);
  log(
    'payment-api',
    paymentTask(deployAt),
    deployAt - 40_000,
    json('payment-api', deployAt - 40_000, 'info', `starting payment-api version=${newVersion}`),
  );
  log(
    'payment-api',
    paymentTask(deployAt),
    deployAt - 39_000,
    json(
      'payment-api',
      deployAt - 39_000,
      'info',
      'config loaded: provider=acmepay provider.timeoutMs=2000 provider.maxRetries=3 provider.pool.maxConnections=4',
    ),
  );
  drain('checkout', checkoutTask(checkoutDeployAt - MINUTE), checkoutDeployAt - 20_000, '2026.11.21-77ad010');
  log(
    'checkout',
    checkoutTask(checkoutDeployAt),
    checkoutDeployAt - 40_000,
    json('checkout', checkoutDeployAt - 40_000, 'info', 'starting checkout version=2026.11.23-0b5e9d2'),
  );

  const stackEvents = demoStackEvents({
    'payment-api': deployAt,
    checkout: checkoutDeployAt,
    'session-cache': end - 10 * 24 * 60 * MINUTE,
  });
  logs.sort((a, b) => a.timestamp - b.timestamp);
  return {
    logs,
    metrics,
    stackEvents,
    facts: { deployAt, spikeStart, newVersion, oldVersion, taskDefinition, start, end },
  };
}

/** Puts the incident into the emulators. */
export function seedDemoIncident(
  incident: DemoIncident,
  targets: { logs: LocalLogs; metrics: LocalMetrics; cloudformation: LocalCloudFormation },
): void {
  for (const e of incident.logs)
    targets.logs.put(e.group, e.stream, { timestamp: e.timestamp, message: e.message });
  for (const m of incident.metrics) for (const v of m.values) targets.metrics.put(m.id, m.time + 30_000, v);
  for (const [stack, events] of Object.entries(incident.stackEvents))
    targets.cloudformation.addEvents(stack, events);
}
