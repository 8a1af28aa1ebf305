import { Duration, Stack } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IChainable, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { WorkflowRegistration } from '../lambdas/kernel/workflows.ts';
import { ENV } from '../lambdas/shared/env.ts';
import type { FunctionSpec } from '../statemachines/kernel-functions.ts';
import {
  type AnyWorkflowModule,
  type ChildWorkflowDefinition,
  type KernelResources,
  resolveTriggers,
} from '../statemachines/workflow-module.ts';
import { grantBedrockModels } from './bedrock-model.ts';
import type { SlackAgentsConfig } from './config.ts';
import { grantBuildLogReads, grantCodeAccess } from './constructs/code-access.ts';
import type { ConversationsTable } from './constructs/conversations-table.ts';
import { InboxQueue } from './constructs/inbox-queue.ts';
import {
  createKernelFunction,
  type KernelFunction,
  type KernelFunctionProps,
  publishedVersion,
} from './constructs/kernel-function.ts';
import type { ThirdPartySecret } from './constructs/third-party-secret.ts';
import { thirdPartySecretOnce } from './constructs/third-party-secret.ts';
import { createWorkflowStateMachine } from './constructs/workflow-state-machine.ts';
import {
  type AliasDeployment,
  childAliases,
  publishWorkflowVersion,
  requireVersion,
  type WorkflowVersion,
} from './constructs/workflow-version.ts';
import { grantMcpHeaders } from './mcp-access.ts';
import { grantPermissions } from './module-permissions.ts';
import { routerVariables } from './router-parts.ts';

/** What the workflow modules get from the stack. */
export interface ModuleDeploymentProps {
  readonly modules: readonly AnyWorkflowModule[];
  readonly config: SlackAgentsConfig;
  readonly functionProps: KernelFunctionProps;
  readonly table: ConversationsTable;
  readonly slackSecret: ThirdPartySecret;
  /** The Anthropic API key's secret; absent with `model.provider: bedrock`. */
  readonly modelSecret: ThirdPartySecret | undefined;
  /** How each workflow's alias moves to the version a deploy publishes. */
  readonly deployment: AliasDeployment;
  /**
   * The kernel's task functions the workflows' states call: the versions this deploy
   * published, so a running execution keeps calling the code it started with.
   */
  readonly kernel: {
    readonly registerWait: IFunction;
    readonly drain: IFunction;
    readonly slackPost: IFunction;
    readonly approvalWait: IFunction;
  };
}

/** The modules as deployed: what the stack wires to the Router and checks. */
export interface ModuleDeployment {
  /** Every module function, by id. */
  readonly functions: ReadonlyMap<string, KernelFunction>;
  /** Every state machine by workflow name: the workflows and their children. */
  readonly stateMachines: ReadonlyMap<string, StateMachine>;
  /** The state machines the Router starts (workflows, not children). */
  readonly startable: readonly StateMachine[];
  /** Every state machine's published version and alias, by workflow name. */
  readonly versions: ReadonlyMap<string, WorkflowVersion>;
  readonly registrations: readonly WorkflowRegistration[];
  /** The enabled modules' Router additions (their `routerAdditions` files), in the modules' order. */
  readonly routerParts: readonly string[];
  /** Variables the Router gets from the modules: those that add to it, and every one's answer kinds. */
  readonly routerEnvironment: Readonly<Record<string, string>>;
  /** Gives the Router what the modules' queues need from it (send, URL). */
  connectRouter(router: KernelFunction): void;
}

interface EnabledModule {
  readonly module: AnyWorkflowModule;
  readonly settings: unknown;
  /** Its functions not deployed under its settings. */
  readonly disabled: ReadonlySet<string>;
  readonly environment: Readonly<Record<string, string>>;
  /** Models its functions call besides the configured one. */
  readonly models: readonly string[];
}

/**
 * Deploys the workflow modules (docs/architecture.md, "The workflow module"): each enabled
 * module's functions with the access they declare, its queues, and its state machines with
 * their children, and returns the Router's registrations. Nothing here names a workflow.
 */
export function deployModules(scope: Construct, props: ModuleDeploymentProps): ModuleDeployment {
  const { config } = props;
  const enabled: EnabledModule[] = props.modules.flatMap((module) => {
    const settings = module.settings === undefined ? undefined : config[module.settings.key];
    if (module.enabled?.(settings) === false) return [];
    return [
      {
        module,
        settings,
        environment: module.environment?.(settings, config) ?? {},
        disabled: new Set<string>(module.disabledFunctions?.(settings) ?? []),
        models: module.models?.(settings) ?? [],
      },
    ];
  });
  const functions = createFunctions(scope, enabled, props);
  for (const { module, settings, disabled } of enabled) {
    grantPermissions(module, settings, disabled, functions);
    module.provision?.(
      scope,
      settings,
      Object.fromEntries(
        Object.keys(module.functions ?? {})
          .filter((id) => !disabled.has(id))
          .map((id) => [id, requireFn(functions, id)]),
      ),
      {
        config: props.config,
        thirdPartySecret: (id, request) => thirdPartySecretOnce(scope, id, request),
        grantModel: (fn) => grantModel(fn as KernelFunction, props, []),
      },
    );
  }

  const stateMachines = new Map<string, StateMachine>();
  const versions = new Map<string, WorkflowVersion>();
  const startable: StateMachine[] = [];
  const registrations: WorkflowRegistration[] = [];
  const children = new Map<string, ChildWorkflowDefinition>();
  for (const { module, settings, disabled } of enabled) {
    const kernel: KernelResources = {
      ...props.kernel,
      table: props.table as ITableRef,
      config,
      // The versions this deploy publishes, not `$LATEST`: see ModuleDeploymentProps.kernel.
      functions: Object.fromEntries(
        Object.keys(module.functions ?? {})
          .filter((id) => !disabled.has(id))
          .map((id) => [id, publishedVersion(requireFn(functions, id))]),
      ),
      settings,
    };
    const machine = (name: string, build: (s: Construct) => IChainable, timeout?: Duration) => {
      const stateMachine = createWorkflowStateMachine(scope, {
        name,
        build,
        ...(timeout === undefined ? {} : { timeout }),
        logRetention: config.logRetentionDays,
        logPii: config.redaction.pii,
      });
      versions.set(name, publishWorkflowVersion(stateMachine, props.deployment));
      return stateMachine;
    };
    for (const workflow of module.workflows ?? []) {
      const deployedChildren = new Map<string, StateMachine>();
      for (const child of workflow.children ?? []) {
        const existing = children.get(child.name);
        if (existing !== undefined && existing !== child)
          throw new Error(`workflow "${child.name}" is defined twice`);
        let stateMachine = stateMachines.get(child.name);
        if (stateMachine === undefined) {
          stateMachine = machine(child.name, (s) => child.build(s, kernel), child.timeout);
          children.set(child.name, child);
          stateMachines.set(child.name, stateMachine);
        }
        deployedChildren.set(child.name, stateMachine);
      }
      if (stateMachines.has(workflow.name)) throw new Error(`workflow "${workflow.name}" is defined twice`);
      const stateMachine = machine(
        workflow.name,
        (s) => workflow.build(s, kernel, childAliases(s, deployedChildren, versions)),
        workflow.timeout,
      );
      // Children start through their alias. Step Functions authorizes a start through an alias
      // on the unqualified ARN, so that is what the parent's role gets.
      for (const child of deployedChildren.values()) child.grantStartExecution(stateMachine.role);
      if (workflow.continuesAsNew === true) allowStartingItself(stateMachine);
      stateMachines.set(workflow.name, stateMachine);
      startable.push(stateMachine);
      registrations.push({
        workflow: workflow.name,
        // Conversations start through the alias: on the version of the latest deploy.
        stateMachineArn: requireVersion(versions, workflow.name).aliasArn,
        triggers: resolveTriggers(workflow, config, settings),
        ownerRole: workflow.ownerRole,
        othersRole: workflow.othersRole,
        closeOnIntent: workflow.closeOnIntent,
      });
    }
  }

  const routerModules = enabled.filter(({ module }) => module.routerAdditions !== undefined);
  // Last of the code access: every CodeBuild project of the modules exists now.
  grantBuildLogReads(scope);
  const queues = createQueues(scope, enabled, functions, config);
  return {
    functions,
    stateMachines,
    startable,
    versions,
    registrations,
    routerParts: routerModules.flatMap(({ module }) => module.routerAdditions ?? []),
    routerEnvironment: routerVariables(enabled, routerModules),
    connectRouter(router) {
      for (const { queue, senders, urlVariable } of queues) {
        if (!senders.includes('Router')) continue;
        queue.queue.grantSendMessages(router);
        router.addEnvironment(urlVariable, queue.queue.queueUrl);
      }
    },
  };
}

/**
 * The modules' functions. Agent turns that call tools come last: they get TOOL_FUNCTIONS, the
 * names of every tool function of the stack (tool names are unique), so that every function
 * that has the variable has the same value (the sandbox runs them in one process); each may
 * invoke its own module's tools only.
 */
function createFunctions(
  scope: Construct,
  enabled: readonly EnabledModule[],
  props: ModuleDeploymentProps,
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
  props: ModuleDeploymentProps,
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
function grantModel(
  fn: KernelFunction,
  props: ModuleDeploymentProps,
  moduleModelIds: readonly string[],
): void {
  if (props.config.model.provider !== 'bedrock') {
    props.modelSecret?.grantRead(fn);
    return;
  }
  grantBedrockModels(fn, [props.config.model.id, ...moduleModelIds], props.config.bedrock.guardrail);
}

interface DeployedQueue {
  readonly queue: InboxQueue;
  readonly senders: readonly string[];
  readonly urlVariable: string;
}

/** The modules' FIFO queues, each with a dead-letter queue, read by its consumer. */
function createQueues(
  scope: Construct,
  enabled: readonly EnabledModule[],
  functions: ReadonlyMap<string, KernelFunction>,
  config: SlackAgentsConfig,
): DeployedQueue[] {
  return enabled.flatMap(({ module }) =>
    Object.entries(module.queues ?? {}).map(([id, spec]) => {
      const consumer = requireFn(functions, spec.consumer);
      const consumerSpec = (module.functions as Record<string, FunctionSpec> | undefined)?.[spec.consumer];
      const queue = new InboxQueue(scope, id, {
        // Six times the consumer's timeout: the Lambda event source mapping's advice, so a
        // message is not redelivered while a slow invocation is still working on it.
        visibilityTimeout: Duration.seconds(6 * (consumerSpec?.timeoutSeconds ?? 30)),
        maxReceiveCount: config.inboxMaxReceiveCount,
      });
      consumer.addEnvironment(spec.deadLetterUrlVariable, queue.deadLetterQueue.queueUrl);
      consumer.addEventSource(
        new SqsEventSource(queue.queue, { batchSize: spec.batchSize, reportBatchItemFailures: true }),
      );
      queue.deadLetterQueue.grantSendMessages(consumer);
      for (const sender of spec.senders) {
        if (sender === 'Router') continue;
        const fn = requireFn(functions, sender);
        queue.queue.grantSendMessages(fn);
        fn.addEnvironment(spec.urlVariable, queue.queue.queueUrl);
      }
      return { queue, senders: spec.senders, urlVariable: spec.urlVariable };
    }),
  );
}

/**
 * Lets a state machine start executions of itself (continue-as-new, `$$.StateMachine.Id`).
 * A separate policy: in the role's default policy, which the state machine depends on, its
 * own ARN would be a dependency cycle.
 */
function allowStartingItself(stateMachine: StateMachine): void {
  new Policy(stateMachine, 'StartItself', {
    roles: [stateMachine.role],
    statements: [
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['states:StartExecution'],
        resources: [stateMachine.stateMachineArn],
      }),
    ],
  });
}

function requireFn(functions: ReadonlyMap<string, KernelFunction>, id: string): KernelFunction {
  const fn = functions.get(id);
  if (fn === undefined) throw new Error(`function "${id}" is not deployed`);
  return fn;
}
