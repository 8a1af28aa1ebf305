import { Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ENV } from '../lambdas/shared/env.ts';
import type { FunctionSpec } from '../statemachines/kernel-functions.ts';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import { grantBedrockModels } from './bedrock-model.ts';
import type { SlackAgentsConfig } from './config.ts';
import { grantCodeAccess } from './constructs/code-access.ts';
import type { ConversationsTable } from './constructs/conversations-table.ts';
import {
  createKernelFunction,
  type KernelFunction,
  type KernelFunctionProps,
} from './constructs/kernel-function.ts';
import type { ThirdPartySecret } from './constructs/third-party-secret.ts';
import { grantMcpHeaders } from './mcp-access.ts';

/**
 * The workflow modules' Lambda functions, each with exactly the access its spec declares: the
 * table, the Slack secret, the model (Anthropic's key or the Bedrock models), code access, MCP
 * headers, and an agent turn's own tool functions. infra/workflow-modules.ts deploys the rest
 * of a module (its permissions, queues and state machines) around them.
 */

/** What the modules' functions get from the stack. */
export interface ModuleFunctionProps {
  readonly config: SlackAgentsConfig;
  readonly functionProps: KernelFunctionProps;
  readonly table: ConversationsTable;
  readonly slackSecret: ThirdPartySecret;
  /** The Anthropic API key's secret; absent with `model.provider: bedrock`. */
  readonly modelSecret: ThirdPartySecret | undefined;
}

/** An enabled module, as its functions are created under its settings. */
export interface ModuleFunctions {
  readonly module: AnyWorkflowModule;
  /** Its functions not deployed under its settings. */
  readonly disabled: ReadonlySet<string>;
  readonly environment: Readonly<Record<string, string>>;
  /** Models its functions call besides the configured one. */
  readonly models: readonly string[];
}

/**
 * The modules' functions. Agent turns that call tools come last: they get TOOL_FUNCTIONS, the
 * names of every tool function of the stack (tool names are unique), so that every function
 * that has the variable has the same value (the sandbox runs them in one process); each may
 * invoke its own module's tools only.
 */
export function createFunctions(
  scope: Construct,
  enabled: readonly ModuleFunctions[],
  props: ModuleFunctionProps,
): Map<string, KernelFunction> {
  const all = enabled.flatMap(({ module, environment, models, disabled }) =>
    Object.entries(module.functions ?? {}).flatMap(([id, spec]) =>
      disabled.has(id)
        ? []
        : [{ id, spec: withoutTools(spec as FunctionSpec, disabled), environment, models }],
    ),
  );
  const usesTools = (spec: FunctionSpec) => Object.keys(spec.access?.tools ?? {}).length > 0;
  const functions = new Map<string, KernelFunction>();
  const create = (
    id: string,
    spec: FunctionSpec,
    environment: Record<string, string>,
    models: readonly string[],
  ) => {
    if (functions.has(id)) throw new Error(`function "${id}" is declared twice`);
    const fn = createKernelFunction(scope, id, spec, {
      ...props.functionProps,
      environment: { ...props.functionProps.environment, ...environment },
    });
    grantAccess(fn, spec, props, models);
    functions.set(id, fn);
    return fn;
  };
  for (const { id, spec, environment, models } of all.filter(({ spec }) => !usesTools(spec)))
    create(id, spec, environment, models);

  // Each agent function gets the map of its own tools: two workflows may each serve a tool of
  // the same name (their own code tools, on their own repositories).
  for (const { id, spec, environment, models } of all.filter(({ spec }) => usesTools(spec))) {
    const toolFunctions = Object.fromEntries(
      Object.entries(spec.access?.tools ?? {}).map(([tool, target]) => [
        tool,
        requireFn(functions, target).functionName,
      ]),
    );
    const toolsVariable = Stack.of(scope).toJsonString(toolFunctions);
    const fn = create(id, spec, { ...environment, [ENV.toolFunctions]: toolsVariable }, models);
    // The functions themselves (the invoker calls them by name), not `grantInvoke`'s `<arn>:*` too.
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['lambda:InvokeFunction'],
        resources: Object.values(spec.access?.tools ?? {}).map(
          (target) => requireFn(functions, target).functionArn,
        ),
      }),
    );
  }
  return functions;
}

/** A spec without the tools that disabled functions would serve. */
function withoutTools(spec: FunctionSpec, disabled: ReadonlySet<string>): FunctionSpec {
  const tools = spec.access?.tools;
  if (tools === undefined || disabled.size === 0) return spec;
  return {
    ...spec,
    access: {
      ...spec.access,
      tools: Object.fromEntries(Object.entries(tools).filter(([, target]) => !disabled.has(target))),
    },
  };
}

function grantAccess(
  fn: KernelFunction,
  spec: FunctionSpec,
  props: ModuleFunctionProps,
  modelIds: readonly string[] = [],
): void {
  grantCodeAccess(fn, spec, props.config.github.baseUrl);
  if (spec.access?.table === 'read') props.table.grantReadData(fn);
  if (spec.access?.table === 'read_write') props.table.grantReadWriteData(fn);
  if (spec.access?.slackSecret === true) props.slackSecret.grantRead(fn);
  if (spec.access?.modelSecret === true) grantModel(fn, props, modelIds);
  // A function that calls tools (an AgentTurn) calls the MCP servers too, with their headers.
  if (spec.access?.tools !== undefined) grantMcpHeaders(fn, props.config.mcp);
}

/**
 * Lets a function that calls the model do so: read the API key secret (Anthropic's API), or
 * invoke exactly the configured Bedrock models: the agents' model and the further ones its
 * module calls (the channel judge's).
 */
export function grantModel(
  fn: KernelFunction,
  props: ModuleFunctionProps,
  moduleModelIds: readonly string[],
): void {
  if (props.config.model.provider !== 'bedrock') {
    props.modelSecret?.grantRead(fn);
    return;
  }
  grantBedrockModels(fn, [props.config.model.id, ...moduleModelIds], props.config.bedrock.guardrail);
}

/** The deployed function of that id (a module names one it does not deploy: fails the synth). */
export function requireFn(functions: ReadonlyMap<string, KernelFunction>, id: string): KernelFunction {
  const fn = functions.get(id);
  if (fn === undefined) throw new Error(`function "${id}" is not deployed`);
  return fn;
}
