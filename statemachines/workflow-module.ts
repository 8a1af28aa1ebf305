import type { Duration } from 'aws-cdk-lib';
import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type * as z from 'zod';
import type { Trigger } from '../lambdas/kernel/workflows.ts';
import type { KernelConfig, ProvisionContext } from './kernel-config.ts';
import type { FunctionSpec } from './kernel-functions.ts';
import type { ModulePreflight } from './module-preflight.ts';
import type { SandboxDeclarations } from './module-sandbox.ts';

export type { KernelConfig, ProvisionContext, ThirdPartySecretRequest } from './kernel-config.ts';

/**
 * The seam between the kernel and a workflow (docs/architecture.md, "The workflow module").
 * A workflow module declares everything the stack and the sandbox need from it: its state
 * machines (and their children), its own Lambda functions (entries, timeouts, access), the
 * tools its agents call, its roles and statuses, its configuration section and default
 * channels, and its queues. The stack (infra/) and the sandbox (local/) read modules only
 * through this interface; the one list of modules is `WORKFLOW_MODULES` in index.ts.
 */

/**
 * What a workflow's `build` gets from the stack: the kernel's task functions (the kernel's
 * SlackPost posts texts only; a module with templates declares its own), the table, the
 * kernel configuration, the module's own functions by key, and its configuration section.
 */
export interface KernelResources<F extends string = string, S = unknown> {
  readonly registerWait: IFunction;
  readonly drain: IFunction;
  readonly slackPost: IFunction;
  /** The approval wait's steps (statemachines/approval-wait.ts). */
  readonly approvalWait: IFunction;
  readonly table: ITableRef;
  readonly config: KernelConfig;
  /** The module's own functions, by their key in `WorkflowModule.functions`. */
  readonly functions: Readonly<Record<F, IFunction>>;
  /** The module's configuration section, defaults applied. */
  readonly settings: S;
}

/**
 * A state machine a workflow starts by itself, fire and forget (the bug investigation's
 * SlaTracking). The stack deploys it beside its parent, lets the parent start it, and hands
 * it to the parent's `build`; the Router never starts it.
 */
export interface ChildWorkflowDefinition<F extends string = string, S = unknown> {
  /**
   * Lower snake case, e.g. `sla_tracking`: the `slack-agents:workflow` metadata of its state
   * machine and, in PascalCase, its logical id. Unique among all workflows and children.
   */
  readonly name: string;
  /**
   * Upper bound of one execution.
   * @default - none beyond Step Functions' own one year
   */
  readonly timeout?: Duration;
  /** Builds the definition's states in `scope`. */
  build(scope: Construct, kernel: KernelResources<F, S>): sfn.IChainable;
}

/** A workflow's deployed children, by `ChildWorkflowDefinition.name`. */
export type WorkflowChildren = ReadonlyMap<string, sfn.IStateMachine>;

/** The deployed child named `name`; fails the synth when the workflow did not declare it. */
export function requireChild(children: WorkflowChildren, name: string): sfn.IStateMachine {
  const child = children.get(name);
  if (child === undefined) {
    throw new Error(`child state machine "${name}" is not deployed: declare it in the workflow's children`);
  }
  return child;
}

/**
 * A workflow: how its conversations start (written to the Router as a registration) and
 * the state machine definition its executions run.
 */
export interface WorkflowDefinition<F extends string = string, S = unknown> {
  /** Registration name, e.g. `bug_investigation` (lower snake case). */
  readonly name: string;
  /** How conversations begin; a function when they depend on configuration. */
  readonly triggers: readonly Trigger[] | ((config: KernelConfig, settings: S) => readonly Trigger[]);
  /** Role of the person who started the conversation, in its first thread (one of the module's roles). */
  readonly ownerRole: string;
  /** Role of anyone else writing in that thread; null ignores them. */
  readonly othersRole: string | null;
  /** Whether the owner's close intent ("never mind") ends the conversation. */
  readonly closeOnIntent: boolean;
  /**
   * Upper bound of one execution.
   * @default - none beyond Step Functions' own one year
   */
  readonly timeout?: Duration;
  /**
   * State machines this workflow starts itself (SlaTracking). Built before the workflow and
   * passed to its `build`.
   * @default - none
   */
  readonly children?: readonly ChildWorkflowDefinition<F, S>[];
  /**
   * Whether executions start a fresh execution of their own state machine to continue the
   * conversation (continue-as-new, ahead of the 25,000-event history limit), through the
   * workflow's alias (derived from `$$.StateMachine.Id`). The stack then lets the state machine
   * start itself.
   * @default false
   */
  readonly continuesAsNew?: boolean;
  /** Builds the definition's states in `scope` (state names must be unique per workflow). */
  build(scope: Construct, kernel: KernelResources<F, S>, children: WorkflowChildren): sfn.IChainable;
}

/**
 * An SQS FIFO queue a module owns, with the function that consumes it (an event source
 * mapping) and the functions that send to it. The stack creates it with a dead-letter queue,
 * grants the senders `sqs:SendMessage`, and sets the URLs in the environment variables named.
 */
export interface QueueSpec<F extends string = string> {
  /** The module function that reads the queue (by its key), or `Router`. */
  readonly consumer: F;
  /** Messages per invocation. */
  readonly batchSize: number;
  /** Functions that send to it: module functions by key, or `Router`. */
  readonly senders: readonly (F | 'Router')[];
  /** The variable holding the queue URL, set on the senders. */
  readonly urlVariable: string;
  /** The variable holding the dead-letter queue URL, set on the consumer (which sets records aside). */
  readonly deadLetterUrlVariable: string;
}

/**
 * An IAM permission a module function needs beyond its `access` (e.g. invoking configured
 * Lambda skills): actions on resources given as ARNs, or as the parts of an ARN in the stack's
 * own partition, region and account (`Stack.formatArn`).
 */
export interface ModulePermission {
  readonly actions: readonly string[];
  /**
   * Why a resource with a `*` in it is as narrow as the action allows (an id AWS assigns at run
   * time, the versions of one document): the stack acknowledges cdk-nag's wildcard finding on
   * each such resource with this reason. A wildcard without one fails the synth.
   * @default - no wildcard is expected
   */
  readonly wildcardReason?: string;
  readonly resources: readonly (
    | string
    | {
        readonly service: string;
        readonly resource: string;
        readonly resourceName: string;
        /** `:` (`function:name`) or `/` (`automation-definition/name`) between resource and name. */
        readonly separator: ':' | '/';
      }
  )[];
}

/**
 * A workflow module: one entry in `WORKFLOW_MODULES` (index.ts) deploys all of it. `F` are
 * the keys of its functions, `S` the type of its configuration section.
 */
export interface WorkflowModule<F extends string = string, S = unknown> extends SandboxDeclarations {
  /** Lower snake case, e.g. `bug_investigation`. */
  readonly name: string;
  /**
   * The module's section of the stack configuration: `slackAgents.<key>`, validated by
   * `schema` (every field with a default, so `{}` is valid) when the stack is configured.
   * @default - no section
   */
  readonly settings?: {
    readonly key: string;
    readonly schema: z.ZodType<S>;
    /**
     * Top-level keys of the configuration that moved into this section: old key -> the
     * section's field. A configuration still using the old place is accepted, moved into the
     * section, and warned about at synth; one using both places is refused.
     * @default - none
     */
    readonly movedFrom?: Readonly<Record<string, string>>;
  };
  /**
   * Channels the module uses by name, with their default ids (placeholders to replace before
   * deploying): composed into `slackAgents.channels`.
   * @default - none
   */
  readonly channels?: Readonly<Record<string, string>>;
  /** The roles its conversations give senders (the kernel adds `bot`). */
  readonly roles: readonly string[];
  /**
   * Roles people hold by configuration, with their default members, composed into
   * `slackAgents.people`: a sender gets such a role only as a member (lambdas/kernel/people.ts).
   * @default - none
   */
  readonly people?: Readonly<
    Record<string, { readonly groups?: readonly string[]; readonly users?: readonly string[] }>
  >;
  /**
   * Decisions its people make with buttons, with the roles allowed by default, composed into
   * `slackAgents.approvals`.
   * @default - none
   */
  readonly decisions?: Readonly<Record<string, readonly string[]>>;
  /**
   * Conversation statuses it sets beyond the kernel's (`active`, `resolved`, `closed`,
   * `failed`): the kernel treats them as not finished.
   * @default - none
   */
  readonly statuses?: readonly string[];
  /**
   * Its own Lambda functions by construct id (unique in the stack, so prefix them with the
   * workflow, e.g. `BugAgentTurn`): agent turns, SlackPost with its templates, tools, checks.
   * @default - none
   */
  readonly functions?: Readonly<Record<F, FunctionSpec<F>>>;
  /**
   * What it adds to the Router: a file whose `part` export is a `RouterPart`
   * (lambdas/handlers/router.ts): its `RouterAddition`s (channel conversations take the messages
   * no workflow owns), and the lookups its conversations need there. The stack composes every
   * enabled module's part into the Router's bundle, in the modules' order; several may add.
   * @default - nothing: the Router routes its workflows' triggers only
   */
  readonly routerAdditions?: string;
  /**
   * The kinds of answer its posts carry feedback buttons for (`withFeedback(message, kind)`),
   * each with how the acknowledgement of a press names it (`findings: 'these findings'`). The
   * stack gives the Router every enabled module's (ANSWER_KINDS): a press on a kind none
   * declares is not stored. Two modules may share a kind with the same name for it.
   * @default - none
   */
  readonly answerKinds?: Readonly<Record<string, string>>;
  /** Queues it owns, by construct id. @default - none */
  readonly queues?: Readonly<Record<string, QueueSpec<F>>>;
  /**
   * Environment variables of its functions (and of the Router when it declares `routerAdditions`),
   * from its settings and the kernel's configuration (e.g. the price of a model it calls).
   * @default - none
   */
  environment?(settings: S, kernel: KernelConfig): Readonly<Record<string, string>>;
  /**
   * Its functions NOT deployed under these settings (e.g. the bug workflow's code tools without
   * a repository); tools they serve are not offered, and `build` does not get them.
   * @default - every function is deployed
   */
  disabledFunctions?(settings: S): readonly F[];
  /**
   * IAM permissions its functions need under its settings beyond `access` (the incident
   * investigation's skills: configured Lambdas and SSM Automation documents), by function key.
   * @default - none
   */
  permissions?(settings: S): Readonly<Partial<Record<F, readonly ModulePermission[]>>>;
  /**
   * Creates what its functions need under its settings beyond functions, queues and
   * permissions (the incident investigation's SSM Automation role, its telemetry reads and
   * credentials), and wires it to them (an environment variable, `iam:PassRole`, a grant).
   * Called once its functions exist.
   * @default - nothing more
   */
  provision?(
    scope: Construct,
    settings: S,
    functions: Readonly<Partial<Record<F, LambdaFunction>>>,
    stack: ProvisionContext,
  ): void;
  /**
   * What its settings need beyond their schema to work in AWS, checked at synth when the module
   * is enabled (e.g. a skill's target): one problem per field, named by its path from the
   * configuration's root (`incidentInvestigation.skills.0.target`). The kernel checks channels
   * and people itself (infra/config-checks.ts).
   * @default - nothing more
   */
  check?(settings: S, kernel: KernelConfig): readonly { readonly path: string; readonly message: string }[];
  /**
   * What its deploy needs beyond the stack under these settings (statemachines/module-preflight.ts):
   * the GitHub repositories it works on, the secrets people fill, its own deploy steps.
   * `npm run preflight` lists them among the steps that remain, and checks them live.
   * @default - nothing beyond the kernel's
   */
  preflight?(settings: S): ModulePreflight;
  /**
   * How a configuration turns it off, for the messages that name a problem of its settings
   * (`remove issuePipeline.repository`).
   * @default - `set <settings key>.enabled: false` when it has `enabled`
   */
  readonly switchOff?: string;
  /** Whether the module deploys anything under its settings (its section still validates). @default true */
  enabled?(settings: S): boolean;
  /**
   * Models its model-calling functions call besides the configured `model.id` (with Bedrock,
   * the stack lets them invoke exactly these too). @default - none
   */
  models?(settings: S): readonly string[];
  /** Its state machines; the Router starts them on their triggers. @default - none */
  readonly workflows?: readonly WorkflowDefinition<F, S>[];
}

const NAME = /^[a-z][a-z0-9_]*$/;

/** Declares a workflow, checking its name early (the Router's registration schema requires it). */
export function defineWorkflow<F extends string = string, S = unknown>(
  definition: WorkflowDefinition<F, S>,
): WorkflowDefinition<F, S> {
  for (const { name } of [definition, ...(definition.children ?? [])]) {
    if (!NAME.test(name)) throw new Error(`workflow name "${name}" must be lower snake case (${NAME})`);
  }
  return definition;
}

/**
 * Declares a workflow module, checking what can be checked without the stack: names, that
 * each workflow's roles are the module's, and that tools and queues name its own functions.
 */
export function defineWorkflowModule<F extends string, S>(
  module: WorkflowModule<F, S>,
): WorkflowModule<F, S> {
  if (!NAME.test(module.name)) throw new Error(`module name "${module.name}" must be lower snake case`);
  const roles = new Set(module.roles);
  for (const role of [...module.roles, ...(module.statuses ?? [])]) {
    if (!NAME.test(role)) throw new Error(`${module.name}: "${role}" must be lower snake case`);
  }
  for (const workflow of module.workflows ?? []) {
    for (const role of [workflow.ownerRole, workflow.othersRole]) {
      if (role !== null && !roles.has(role))
        throw new Error(
          `${module.name}: workflow ${workflow.name} uses role "${role}", not one of its roles`,
        );
    }
  }
  const functions = (module.functions ?? {}) as Readonly<Record<string, FunctionSpec<F>>>;
  for (const [id, spec] of Object.entries(functions)) {
    for (const target of Object.values(spec.access?.tools ?? {}) as string[]) {
      if (!(target in functions))
        throw new Error(`${module.name}: ${id} calls tool function ${target}, not its own`);
    }
  }
  for (const [id, queue] of Object.entries(module.queues ?? {})) {
    for (const fn of [queue.consumer, ...queue.senders] as string[]) {
      if (fn !== 'Router' && !(fn in functions))
        throw new Error(`${module.name}: queue ${id} names ${fn}, not its own`);
    }
  }
  return module;
}

/** The first user group of a configured role (to mention it); fails the synth when it has none. */
export function requireRoleGroup(config: KernelConfig, role: string): string {
  const group = config.people[role]?.groups[0];
  if (group === undefined)
    throw new Error(`slackAgents.people.${role} needs a user group (groups: ["S..."])`);
  return group;
}

/** A configured channel's id; fails the synth when the configuration has none by that name. */
export function requireChannel(config: KernelConfig, name: string): string {
  const id = config.channels[name];
  if (id === undefined) throw new Error(`no channel "${name}" in the slackAgents channels`);
  return id;
}

/** The triggers of a workflow under a configuration. */
export function resolveTriggers<S>(
  workflow: WorkflowDefinition<string, S>,
  config: KernelConfig,
  settings: S,
): Trigger[] {
  const triggers =
    typeof workflow.triggers === 'function' ? workflow.triggers(config, settings) : workflow.triggers;
  return [...triggers];
}

/** A module as the stack handles it, whatever its function keys and settings. */
// biome-ignore lint/suspicious/noExplicitAny: the stack handles every module's settings as opaque values.
export type AnyWorkflowModule = WorkflowModule<string, any>;
