import type { LocalCloudFormation, StackEvent } from '../../local/cloudformation/api.ts';
import type { LocalLogs } from '../../local/logs/store.ts';
import type { LocalMetrics } from '../../local/metrics/store.ts';
import { hex, seededRandom } from '../../local/telemetry/random.ts';
import {
  EVAL_NAMESPACE,
  EVAL_SERVICE_NAMES,
  EVAL_SERVICES,
  type EvalService,
  logGroupOf,
  stackOf,
} from './services.ts';

/**
 * An incident case's telemetry, described by what happened rather than line by line: every
 * service's steady traffic (requests, latency, a few errors, sampled access logs, its own
 * gauges), deployments (CloudFormation stack updates and the tasks' start lines), and effects
 * (a window in which a service is slower, fails a share of requests with a given error line,
 * or a gauge moves), plus one-off lines. The same seed and `now` give the same data.
 * Nothing here says what the cause is: that is the case's truth, which only graders read.
 */

export interface Deploy {
  service: EvalService;
  minutesAgo: number;
  version: string;
  /** Lines the new tasks log at start (configuration loaded...). */
  startLines?: string[];
}

export interface Effect {
  service: EvalService;
  fromMinutesAgo: number;
  /** @default 0 (still going on) */
  toMinutesAgo?: number;
  /** Latency multiplier, reached linearly over `rampMinutes`. @default 1 */
  latencyFactor?: number;
  /** Share of requests failing (0-1). @default 0 */
  errorShare?: number;
  /** The error line of a failed request (`{ms}` becomes its duration). */
  errorLine?: string;
  /** Gauges during the window: a value, or [from, to] moved linearly across the window. */
  gauges?: Record<string, number | [number, number]>;
  /** A warning logged every `everyMinutes`. */
  warn?: { line: string; everyMinutes: number };
  /** @default 0 */
  rampMinutes?: number;
}

export interface OneOff {
  service: EvalService;
  minutesAgo: number;
  level: 'info' | 'warn' | 'error';
  line: string;
}

export interface Scenario {
  seed: number;
  /** @default 3 */
  hours?: number;
  deploys?: Deploy[];
  effects?: Effect[];
  lines?: OneOff[];
}

export interface ScenarioTargets {
  logs: Pick<LocalLogs, 'put'>;
  metrics: Pick<LocalMetrics, 'put'>;
  cloudformation: Pick<LocalCloudFormation, 'addEvents'>;
}

const MINUTE = 60_000;

/** Puts the scenario's data into the emulators, relative to `now`; returns how many log lines it wrote. */
export function seedScenario(scenario: Scenario, now: number, targets: ScenarioTargets): number {
  const random = seededRandom(scenario.seed);
  const end = Math.floor(now / MINUTE) * MINUTE;
  const start = end - (scenario.hours ?? 3) * 60 * MINUTE;
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const deploys = scenario.deploys ?? [];
  const effects = scenario.effects ?? [];
  let lines = 0;
  const log = (service: EvalService, t: number, level: string, msg: string, fields: object = {}) => {
    const version = versionAt(deploys, service, end, t);
    targets.logs.put(logGroupOf(service), `${service}/${version.slice(-7)}`, {
      timestamp: t,
      message: JSON.stringify({ time: new Date(t).toISOString(), level, service, msg, ...fields }),
    });
    lines++;
  };
  const metric = (service: EvalService, name: string, t: number, value: number) =>
    targets.metrics.put(
      { namespace: EVAL_NAMESPACE, name, dimensions: [{ Name: 'Service', Value: service }] },
      t + 30_000,
      value,
    );

  for (let minute = start; minute < end; minute += MINUTE) {
    for (const service of EVAL_SERVICE_NAMES) {
      const base = EVAL_SERVICES[service];
      const active = effects.filter(
        (e) =>
          e.service === service &&
          minute >= end - e.fromMinutesAgo * MINUTE &&
          minute < end - (e.toMinutesAgo ?? 0) * MINUTE,
      );
      const progressOf = (e: Effect) => {
        const from = end - e.fromMinutesAgo * MINUTE;
        const to = end - (e.toMinutesAgo ?? 0) * MINUTE;
        return Math.min(1, Math.max(0, (minute - from) / Math.max(MINUTE, to - from)));
      };
      const factor = active.reduce((f, e) => {
        const ramp = e.rampMinutes
          ? Math.min(1, (minute - (end - e.fromMinutesAgo * MINUTE)) / (e.rampMinutes * MINUTE))
          : 1;
        return f * (1 + ((e.latencyFactor ?? 1) - 1) * ramp);
      }, 1);
      const failing = active.find((e) => (e.errorShare ?? 0) > 0);
      const requests = 30 + Math.floor(random() * 10);
      const latencies: number[] = [];
      let errors = 0;
      for (let r = 0; r < requests; r++) {
        const t = minute + Math.floor(random() * MINUTE);
        const ms = Math.max(1, Math.round(base.latencyMs * factor * (1 + 0.15 * gauss())));
        latencies.push(ms);
        if (failing && random() < (failing.errorShare ?? 0)) {
          errors++;
          log(service, t, 'error', (failing.errorLine ?? 'request failed').replaceAll('{ms}', String(ms)), {
            trace_id: hex(random, 16),
          });
        } else if (r % 8 === 0) {
          log(service, t, 'info', `request ok in ${ms}ms`, { trace_id: hex(random, 16) });
        }
      }
      metric(service, 'Requests', minute, requests);
      metric(service, 'Errors', minute, errors + (random() < 0.03 ? 1 : 0));
      for (const v of latencies) metric(service, 'LatencyMs', minute, v);
      for (const [name, baseline] of Object.entries(base.extras) as [string, number][]) {
        let value = baseline * (1 + 0.02 * gauss());
        for (const e of active) {
          const g = e.gauges?.[name];
          if (g === undefined) continue;
          value = typeof g === 'number' ? g * (1 + 0.02 * gauss()) : g[0] + (g[1] - g[0]) * progressOf(e);
        }
        metric(service, name, minute, Math.max(0, Number(value.toFixed(3))));
      }
      for (const e of active)
        if (
          e.warn &&
          Math.round((minute - (end - e.fromMinutesAgo * MINUTE)) / MINUTE) % e.warn.everyMinutes === 0
        )
          log(service, minute + Math.floor(random() * MINUTE), 'warn', e.warn.line);
    }
  }

  for (const d of deploys) {
    const at = end - d.minutesAgo * MINUTE;
    const previous = versionAt(deploys, d.service, end, at - 1);
    log(d.service, at - 20_000, 'info', `received SIGTERM, draining connections version=${previous}`);
    log(d.service, at - 40_000, 'info', `starting ${d.service} version=${d.version}`);
    for (const [i, line] of (d.startLines ?? []).entries())
      log(d.service, at - 39_000 + i * 100, 'info', line);
    targets.cloudformation.addEvents(stackOf(d.service), deploymentEvents(d.service, at));
  }
  for (const o of scenario.lines ?? []) log(o.service, end - o.minutesAgo * MINUTE, o.level, o.line);
  return lines;
}

/** The version a service runs at time `t`: the last deploy before it, or its steady version. */
function versionAt(deploys: readonly Deploy[], service: EvalService, end: number, t: number): string {
  const before = deploys
    .filter((d) => d.service === service && end - d.minutesAgo * MINUTE <= t)
    .sort((a, b) => b.minutesAgo - a.minutesAgo);
  return before.at(-1)?.version ?? '2026.11.02-a1b2c3d';
}

/** A stack update that replaces a task definition and rolls the service, finishing at `at`. */
function deploymentEvents(service: EvalService, at: number): Omit<StackEvent, 'eventId'>[] {
  const stack = stackOf(service);
  const family = `arn:aws:ecs:us-east-1:000000000000:task-definition/${service}`;
  const ecs = `arn:aws:ecs:us-east-1:000000000000:service/prod/${service}`;
  const s = (secondsBefore: number) => at - secondsBefore * 1000;
  const stackRow = (t: number, resourceStatus: string) => ({
    logicalResourceId: stack,
    physicalResourceId: `arn:aws:cloudformation:us-east-1:000000000000:stack/${stack}/6f1c2a40-1f0c-11f0-9a3e-0a1b2c3d4e5f`,
    resourceType: 'AWS::CloudFormation::Stack',
    timestamp: t,
    resourceStatus,
  });
  return [
    { ...stackRow(s(240), 'UPDATE_IN_PROGRESS'), resourceStatusReason: 'User Initiated' },
    {
      logicalResourceId: 'TaskDefinition',
      resourceType: 'AWS::ECS::TaskDefinition',
      timestamp: s(228),
      resourceStatus: 'UPDATE_COMPLETE',
      physicalResourceId: `${family}:8`,
    },
    {
      logicalResourceId: 'Service',
      resourceType: 'AWS::ECS::Service',
      timestamp: s(225),
      resourceStatus: 'UPDATE_IN_PROGRESS',
      physicalResourceId: ecs,
    },
    {
      logicalResourceId: 'Service',
      resourceType: 'AWS::ECS::Service',
      timestamp: s(0),
      resourceStatus: 'UPDATE_COMPLETE',
      physicalResourceId: ecs,
    },
    stackRow(s(-10), 'UPDATE_COMPLETE'),
  ];
}
