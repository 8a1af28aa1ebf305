import { Duration } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IChainable, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { WorkflowRegistration } from '../lambdas/kernel/workflows.ts';
import type { FunctionSpec } from '../statemachines/kernel-functions.ts';
import {
  type AnyWorkflowModule,
  type ChildWorkflowDefinition,
  type KernelResources,
  resolveTriggers,
} from '../statemachines/workflow-module.ts';
import type { SlackAgentsConfig } from './config.ts';
import { grantBuildLogReads } from './constructs/code-access.ts';
import { InboxQueue } from './constructs/inbox-queue.ts';
import { type KernelFunction, publishedVersion } from './constructs/kernel-function.ts';
import { thirdPartySecretOnce } from './constructs/third-party-secret.ts';
import { createWorkflowStateMachine } from './constructs/workflow-state-machine.ts';
import {
  type AliasDeployment,
  childAliases,
  publishWorkflowVersion,
  requireVersion,
  type WorkflowVersion,
} from './constructs/workflow-version.ts';
import {
  createFunctions,
  grantModel,
  type ModuleFunctionProps,
  type ModuleFunctions,
  requireFn,
} from './module-functions.ts';
import { grantPermissions } from './module-permissions.ts';
import { routerVariables } from './router-parts.ts';

/** What the workflow modules get from the stack. */
export interface ModuleDeploymentProps extends ModuleFunctionProps {
  readonly modules: readonly AnyWorkflowModule[];
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

interface EnabledModule extends ModuleFunctions {
  readonly settings: unknown;
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
