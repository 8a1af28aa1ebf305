import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import {
  TelemetryConfig,
  type TelemetryConfigInput,
} from '../../lambdas/workflows/incident-investigation/telemetry/config.ts';
import type { TelemetryDeps } from '../../lambdas/workflows/incident-investigation/telemetry/deps.ts';
import { runTelemetryTool } from '../../lambdas/workflows/incident-investigation/telemetry/run-telemetry-tool.ts';
import { createTelemetryDeps } from '../../lambdas/workflows/incident-investigation/telemetry/wiring.ts';
import { readBody } from '../../local/read-body.ts';
import { createSandboxTelemetry, type SandboxTelemetry } from '../../local/sandbox-telemetry.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * The telemetry tools against the sandbox's emulators (CloudWatch Logs, metrics,
 * CloudFormation) on a local port, through the real SDK clients pointed there by
 * `AWS_ENDPOINT_URL_*`, with the evidence ledger in dynalite. The demo incident is seeded
 * with a fixed clock, so its facts are the same on every run.
 */

export const NOW = Date.parse('2015-11-23T22:00:00.000Z');

export interface TelemetryHarness {
  telemetry: SandboxTelemetry;
  deps: TelemetryDeps;
  endpoint: string;
  /** The dynalite table of the ledgers (the evidence ledger's and the conversations'). */
  tableName: string;
  call(
    tool: string,
    args: unknown,
    options?: { scope?: string; conversationId?: string },
  ): ReturnType<typeof runTelemetryTool>;
  close(): Promise<void>;
}

const ENDPOINT_VARIABLES = [
  'AWS_ENDPOINT_URL_CLOUDWATCH_LOGS',
  'AWS_ENDPOINT_URL_CLOUDWATCH',
  'AWS_ENDPOINT_URL_CLOUDFORMATION',
];

export async function startTelemetryHarness(
  options: { config?: TelemetryConfigInput; demoSeed?: number | false; env?: NodeJS.ProcessEnv } = {},
): Promise<TelemetryHarness> {
  const telemetry = createSandboxTelemetry({ now: () => NOW, demoSeed: options.demoSeed ?? 3 });
  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      if (!(await telemetry.serve(req, res, body))) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = await startDynalite();
  const saved = Object.fromEntries(
    [
      ...ENDPOINT_VARIABLES,
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_ENDPOINT_URL_DYNAMODB',
    ].map((name) => [name, process.env[name]]),
  );
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    ...Object.fromEntries(ENDPOINT_VARIABLES.map((name) => [name, endpoint])),
  });
  const deps: TelemetryDeps = createTelemetryDeps({
    config: TelemetryConfig.parse(options.config ?? DEMO_TELEMETRY_CONFIG),
    tableName: db.tableName,
    now: () => NOW,
    ...(options.env ? { env: options.env } : {}),
  });
  return {
    telemetry,
    deps,
    endpoint,
    tableName: db.tableName,
    call: (tool, args, call = {}) =>
      runTelemetryTool(
        {
          tool: tool as never,
          args,
          conversationId: call.conversationId ?? 'incident-1',
          ...(call.scope ? { context: { scope: call.scope } } : {}),
        },
        deps,
      ),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}

/**
 * The harness for the tests of one file: started in the file's `beforeAll`, closed in its
 * `afterAll`. What it returns reads the started harness, so the file's tests use it as one.
 */
export function telemetryHarnessForFile(): Omit<TelemetryHarness, 'close'> {
  let started: TelemetryHarness | undefined;
  const harness = () => {
    if (started === undefined) throw new Error('the telemetry harness starts in the beforeAll of the file');
    return started;
  };
  beforeAll(async () => {
    started = await startTelemetryHarness();
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get telemetry() {
      return harness().telemetry;
    },
    get deps() {
      return harness().deps;
    },
    get endpoint() {
      return harness().endpoint;
    },
    get tableName() {
      return harness().tableName;
    },
    call: (tool, args, options) => harness().call(tool, args, options),
  };
}

/** The text of a tool call that must succeed. */
export function output(result: Awaited<ReturnType<TelemetryHarness['call']>>): string {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.output;
}
