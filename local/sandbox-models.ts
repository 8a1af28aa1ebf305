import type { IncomingMessage, ServerResponse } from 'node:http';
import { FREE_MODEL_PRICE } from '../lambdas/agents/pricing.ts';
import { ENV } from '../lambdas/shared/env.ts';
import type { SandboxModule } from '../statemachines/module-sandbox.ts';
import { SANDBOX_MODULES } from '../statemachines/sandbox-modules.ts';
import { noteActivity } from './activity.ts';
import { type BedrockRuntime, createBedrockRuntime, isBedrockRuntimeRequest } from './bedrock/runtime-api.ts';
import { createDemoModelHandler } from './model/demo-model.ts';
import { forwardTo, ModelFaults, withModelFaults } from './model/faults.ts';
import { createFaultRoutes } from './sandbox-faults.ts';
import type { SlackFaults } from './slack/faults.ts';

/** Where the offline demo model answers the Messages API (`POST .../v1/messages`). */
export const DEMO_MODEL_PATH = '/demo-model';

/**
 * The offline demo model's price, $0, wherever it answers (the sandbox and its console, the
 * eval harness's demo runs): the one price of its tokens, which are still counted.
 */
export const DEMO_MODEL_PRICE_ENV: Readonly<Record<string, string>> = {
  [ENV.modelPrice]: JSON.stringify(FREE_MODEL_PRICE),
};

/**
 * The handlers' environment when the offline demo model answers: its endpoint, a key it takes,
 * and its price of $0, so its turns cost nothing instead of the configured model's price.
 */
export function demoModelEnv(url: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: `${url}${DEMO_MODEL_PATH}`,
    ANTHROPIC_API_KEY: 'sandbox-demo-model',
    ...DEMO_MODEL_PRICE_ENV,
  };
}
/**
 * Where the handlers reach the model: faults (`/sandbox/faults`) in front of the demo or the
 * caller's model. Not `/model`: Bedrock Runtime's `/model/{modelId}/invoke` is on the same port.
 */
export const MODEL_FRONT_PATH = '/model-front';
/** Where the model front forwards when only `ANTHROPIC_API_KEY` is set (the SDK's own default). */
const ANTHROPIC_API_URL = 'https://api.anthropic.com';

export interface SandboxModels {
  /** The model's misbehaviour on purpose (`/sandbox/faults`); also counts the model requests. */
  readonly faults: ModelFaults;
  /** The emulated Bedrock Runtime, in front of the model front (faults included). */
  readonly bedrock: BedrockRuntime;
  /** Serves the request when it is one of the model endpoints or `/sandbox/faults`; false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, body: string, path: string): Promise<boolean>;
}

/**
 * The sandbox's model endpoints on its one port: the demo model, the model front the
 * handlers call (the caller's model server, the Anthropic API when only a key is given, else
 * the demo model: behind the faults either way), Bedrock Runtime, and the faults' routes.
 */
export function createSandboxModels(options: {
  env: Record<string, string> | undefined;
  slackFaults: SlackFaults;
  timeScale: number;
  /** The sandbox's workflow modules, whose agents the demo model plays. @default SANDBOX_MODULES */
  modules?: readonly SandboxModule[] | undefined;
}): SandboxModels {
  const demoModel = createDemoModelHandler(options.modules ?? SANDBOX_MODULES);
  const faults = new ModelFaults();
  const upstreamModel =
    options.env?.ANTHROPIC_BASE_URL || (options.env?.ANTHROPIC_API_KEY ? ANTHROPIC_API_URL : undefined);
  const modelFront = withModelFaults(
    faults,
    upstreamModel
      ? forwardTo(upstreamModel, MODEL_FRONT_PATH)
      : (req, res, body) => {
          req.url = (req.url ?? '').replace(MODEL_FRONT_PATH, DEMO_MODEL_PATH);
          return demoModel(req, res, body);
        },
  );
  const faultRoutes = createFaultRoutes({
    slack: options.slackFaults,
    model: faults,
    timeScale: options.timeScale,
  });
  // The handlers' ANTHROPIC_BASE_URL is the model front, so Bedrock gets the same faults.
  const bedrock = createBedrockRuntime({
    upstream: () => process.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_API_URL,
    upstreamApiKey: () => process.env.ANTHROPIC_API_KEY,
  });
  return {
    faults,
    bedrock,
    async serve(req, res, body, path) {
      // A model call is the sandbox at work (local/activity.ts); the fault routes are a test's.
      if (path.startsWith(`${DEMO_MODEL_PATH}/`) || path.startsWith(`${MODEL_FRONT_PATH}/`)) noteActivity();
      if (path.startsWith(`${DEMO_MODEL_PATH}/`)) await demoModel(req, res, body);
      else if (path.startsWith(`${MODEL_FRONT_PATH}/`)) await modelFront(req, res, body);
      else if (isBedrockRuntimeRequest(req)) await bedrock.handle(req, res, body);
      else if (path === '/sandbox/faults') return faultRoutes(req, res, body);
      else return false;
      return true;
    },
  };
}
