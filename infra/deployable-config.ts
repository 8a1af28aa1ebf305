import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import { CONFIG_CONTEXT_KEY, InvalidConfigError, parseConfig, type SlackAgentsConfig } from './config.ts';

/** The problem line for the sandbox's configuration, which `cdk synth`/`cdk deploy` and the preflight refuse. */
export const SANDBOX_NOT_DEPLOYABLE = `${CONFIG_CONTEXT_KEY}.sandbox: the sandbox's configuration is never deployed; remove sandbox: true`;

/**
 * The configuration as `cdk synth` and `cdk deploy` take it (infra/app.ts): validated, and never
 * the sandbox's (its fake workspace ids would deploy a stack that cannot work).
 * @throws InvalidConfigError with one line per problem
 */
export function deployableConfig(
  raw: unknown,
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
): SlackAgentsConfig {
  const config = parseConfig(raw, modules);
  if (config.sandbox) throw new InvalidConfigError([SANDBOX_NOT_DEPLOYABLE]);
  return config;
}
