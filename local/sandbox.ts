import './polyfills.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { removeScratch } from '../infra/scratch.ts';
import { CODE_TOOLS_ENV } from '../lambdas/tools/code/config.ts';
import { keepIdleConnections } from './http-server.ts';
import { SANDBOX_HISTORY_MCP_PATH } from './mcp/paths.ts';
import { openHost } from './sandbox-host.ts';
import { DEMO_MODEL_PATH, MODEL_FRONT_PATH } from './sandbox-models.ts';
import {
  DEVELOPMENT_SIGNING_SECRET,
  DEVELOPMENT_WEBHOOK_SECRETS,
  EVENTBRIDGE_PATH,
  type Sandbox,
  type SandboxOptions,
} from './sandbox-options.ts';
import { readSandboxState, restoreSandboxState, saveSandboxState } from './sandbox-state.ts';
import { buildWorld, type SandboxHost, type SandboxWorld, statefulParts } from './sandbox-world.ts';

export {
  DEMO_MODEL_PATH,
  DEVELOPMENT_SIGNING_SECRET,
  DEVELOPMENT_WEBHOOK_SECRETS,
  EVENTBRIDGE_PATH,
  MODEL_FRONT_PATH,
  type Sandbox,
  type SandboxOptions,
};

/**
 * The offline runtime: the synthesized stack's tables (dynalite), queues (the SQS FIFO
 * subset, with the event source mapping driving the Router), state machines (the ASL from
 * the template, run by aws-local-stepfunctions), Lambda handlers (the real modules, in
 * process), a fake Slack workspace, and the ingress at `POST /slack/events` — all on one
 * port. The handlers reach the emulated services through `AWS_ENDPOINT_URL_*` and
 * `SLACK_API_URL`, exactly as they would reach AWS and Slack.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return (await startReusableSandbox(options)).sandbox;
}

/**
 * A sandbox that can serve one user after another (test files of one worker): `release()`
 * ends the current user's work, `renew()` hands out the same port, template and prepared
 * state machines with nothing of the last user left (docs/testing.md).
 */
export interface ReusableSandbox {
  /** The current user's view; its `stop()` closes the sandbox for good. */
  readonly sandbox: Sandbox;
  /**
   * Stops the current user's work: no queue is polled, every execution is stopped, every
   * handler invocation has ended, and the world (tables, queues, Slack, GitHub...) is thrown
   * away. False when some invocation did not end within `settleMs`: the sandbox is then closed,
   * since what still runs could write into the next user's world.
   */
  release(options?: { settleMs?: number }): Promise<boolean>;
  /** A fresh world for the next user (after `release()`), with its own model server if it names one. */
  renew(options: SandboxOptions): Promise<Sandbox>;
  /** Closes the sandbox (its port, its emulators). */
  close(): Promise<void>;
}

export async function startReusableSandbox(options: SandboxOptions = {}): Promise<ReusableSandbox> {
  const timeScale = options.timeScale ?? 1;
  const signingSecret = options.signingSecret ?? DEVELOPMENT_SIGNING_SECRET;
  const host = options.host ?? '127.0.0.1';

  // One port for everything: AWS protocols are told apart by their X-Amz-Target header.
  const starting = async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"starting"}');
  };
  const gone = async (req: IncomingMessage): Promise<void> => {
    req.socket.destroy();
  };
  let route = starting;
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      console.error('[sandbox] request failed', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(error) }));
    });
  });
  keepIdleConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  const closeServer = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  let sandboxHost: SandboxHost;
  let world: SandboxWorld | undefined;
  try {
    const saved = options.state === undefined ? undefined : readSandboxState(options.state);
    sandboxHost = await openHost({ ...options, timeScale, signingSecret }, url, {
      setRoute: (r) => {
        route = r;
      },
      world: () => world,
    });
    world = await buildWorld(sandboxHost, options, saved?.github);
    if (saved) restoreSandboxState(saved, statefulParts(sandboxHost, world));
  } catch (error) {
    await closeServer();
    throw error;
  }
  const hostOf = sandboxHost;
  let closed = false;
  const release = async ({ settleMs = 5_000 } = {}): Promise<boolean> => {
    const current = world;
    if (closed || !current) return !closed;
    // A sandbox that keeps its state saves it and closes: its state is not the next user's.
    if (hostOf.options.state !== undefined) {
      await close();
      return false;
    }
    world = undefined;
    // What the last user still has in flight fails at once, as against a stopped sandbox: its
    // connections are closed and its new requests are dropped until the next world serves.
    route = gone;
    server.closeAllConnections();
    // No new work: queues are not polled, the outbox is not swept, no execution runs on.
    await current.quiesce();
    let settled = false;
    const deadline = Date.now() + settleMs;
    // A handler still running may start an execution or send a task's result: stop again
    // until nothing runs and no invocation is in flight.
    while (Date.now() < deadline) {
      await hostOf.stepFunctions.close();
      await hostOf.codebuild.close();
      if (!(await hostOf.runtime.settled(deadline - Date.now()))) break;
      await Promise.race([current.slack.workspace.settled(), sleep(Math.max(0, deadline - Date.now()))]);
      if (hostOf.runtime.inFlight() === 0 && !hostOf.stepFunctions.running()) {
        settled = true;
        break;
      }
    }
    route = starting;
    await current.close();
    if (!settled) {
      await close();
      return false;
    }
    hostOf.stepFunctions.reset();
    hostOf.codebuild.reset();
    // The next user's handlers are loaded afresh: nothing a module kept survives.
    await hostOf.runtime.forget();
    return true;
  };
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    const current = world;
    world = undefined;
    await current?.quiesce();
    if (current && hostOf.options.state !== undefined) {
      route = gone;
      server.closeAllConnections();
      await saveSandboxState(hostOf.options.state, statefulParts(hostOf, current));
    }
    await hostOf.stepFunctions.close();
    await hostOf.codebuild.close();
    await current?.close();
    await closeServer();
    await hostOf.runtime.close();
    hostOf.dynamodb.destroy();
    removeScratch(hostOf.environment[CODE_TOOLS_ENV.cacheDir]);
  };
  const view = (w: SandboxWorld): Sandbox => sandboxView(hostOf, w, port, close);
  return {
    sandbox: view(world),
    release,
    async renew(next) {
      if (closed) throw new Error('the sandbox is closed');
      if (world) throw new Error('the sandbox is in use: release() it first');
      world = await buildWorld(hostOf, next);
      return view(world);
    },
    close,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sandboxView(
  host: SandboxHost,
  world: SandboxWorld,
  port: number,
  stop: () => Promise<void>,
): Sandbox {
  return {
    url: host.url,
    port,
    signingSecret: host.options.signingSecret,
    webhookSecrets: host.webhookSecrets,
    timeScale: host.options.timeScale,
    slack: world.slack,
    stepFunctions: host.stepFunctions,
    sqs: world.sqs,
    dynamodb: host.dynamodb,
    tableName: world.tableName,
    inboxUrl: world.inboxUrl,
    github: world.github,
    bedrock: world.bedrock,
    codebuild: host.codebuild,
    telemetry: world.telemetry,
    mcp: world.mcp,
    ...(host.historyMcpId !== undefined ? { historyMcpUrl: `${host.url}${SANDBOX_HISTORY_MCP_PATH}` } : {}),
    template: host.template,
    modelFaults: world.modelFaults,
    idle: () => world.idle(),
    stop,
  };
}
