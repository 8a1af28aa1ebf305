import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createCloudFormationApiHandler,
  isCloudFormationRequest,
  LocalCloudFormation,
} from './cloudformation/api.ts';
import { createLogsApiHandler, LOGS_TARGET_PREFIX, LogsService } from './logs/api.ts';
import { LocalLogs } from './logs/store.ts';
import { CLOUDWATCH_TARGET_PREFIX, createMetricsApiHandler, MetricsService } from './metrics/api.ts';
import { LocalMetrics } from './metrics/store.ts';
import { type DemoIncident, generateDemoIncident, seedDemoIncident } from './telemetry/demo-incident.ts';
import { readLoghubNoise } from './telemetry/loghub-noise.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './template.ts';

/**
 * The sandbox's telemetry: CloudWatch Logs (build logs and the demo incident's), CloudWatch
 * metrics and CloudFormation stack events, served on the sandbox's port, and the demo incident
 * seeded before any of them is first read or written.
 */

export interface SandboxTelemetryOptions {
  /** The demo incident's seed; `false` starts with no demo data. @default 3 */
  demoSeed?: number | false;
  /** Loghub's directory, for background noise in the demo logs (SANDBOX_LOGHUB_DIR). @default none */
  loghubDir?: string;
  now?: () => number;
}

export interface SandboxTelemetry {
  readonly logs: LocalLogs;
  readonly metrics: LocalMetrics;
  readonly cloudformation: LocalCloudFormation;
  /** What the demo incident planted; undefined without one. */
  readonly demo: DemoIncident['facts'] | undefined;
  /** Why there is no Loghub noise, when there is none. */
  readonly noiseNote?: string;
  /** Serves the request when it is one of these APIs; false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean>;
}

export function createSandboxTelemetry(options: SandboxTelemetryOptions = {}): SandboxTelemetry {
  const now = options.now ?? Date.now;
  const logs = new LocalLogs(now);
  const metrics = new LocalMetrics();
  const cloudformation = new LocalCloudFormation({ region: LOCAL_REGION, account: LOCAL_ACCOUNT });
  const noise = options.demoSeed === false ? undefined : readLoghubNoise(options.loghubDir);
  // The demo incident (three hours of logs and metrics, about 80 ms of CPU) is seeded when its
  // data is first read or written, not at start: most sandboxes never look at telemetry.
  let demo: DemoIncident['facts'] | undefined;
  let seeded = options.demoSeed === false;
  const seed = () => {
    if (seeded) return;
    seeded = true;
    const incident = generateDemoIncident({
      now: now(),
      seed: typeof options.demoSeed === 'number' ? options.demoSeed : 3,
      noise: noise?.lines ?? [],
    });
    seedDemoIncident(incident, { logs, metrics, cloudformation });
    demo = incident.facts;
  };
  const logsApi = createLogsApiHandler(new LogsService(logs));
  const metricsApi = createMetricsApiHandler(new MetricsService(metrics, now));
  const cloudformationApi = createCloudFormationApiHandler(cloudformation);
  return {
    get logs() {
      seed();
      return logs;
    },
    get metrics() {
      seed();
      return metrics;
    },
    get cloudformation() {
      seed();
      return cloudformation;
    },
    get demo() {
      seed();
      return demo;
    },
    ...(noise?.note ? { noiseNote: noise.note } : {}),
    async serve(req, res, body) {
      const target = String(req.headers['x-amz-target'] ?? '');
      const api = target.startsWith(LOGS_TARGET_PREFIX)
        ? logsApi
        : target.startsWith(CLOUDWATCH_TARGET_PREFIX)
          ? metricsApi
          : isCloudFormationRequest(req, body)
            ? cloudformationApi
            : undefined;
      if (api === undefined) return false;
      seed();
      await api(req, res, body);
      return true;
    },
  };
}
