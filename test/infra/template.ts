import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import type { SlackAgentsStack } from '../../infra/slack-agents-stack.ts';
import { buildStack, type SynthesizeOptions } from '../../infra/synth.ts';
import { withStateMachineArns } from '../../lambdas/kernel/workflows.ts';
import {
  CONFIG_FILE_DIR,
  CONFIG_FILE_VARIABLE,
  CONFIG_FILES_METADATA_KEY,
} from '../../lambdas/shared/config-file.ts';
import type { CloudFormationTemplate } from '../../local/template.ts';
import { readCachedTemplate, templateKey, writeCachedTemplate } from '../../local/template-cache.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import {
  type AnyWorkflowModule,
  type defineWorkflow,
  defineWorkflowModule,
} from '../../statemachines/workflow-module.ts';

/** A workflow, as defineWorkflow makes it. */
type WorkflowDefinition = ReturnType<typeof defineWorkflow>;

/**
 * Helpers for reading the synthesized template: the stack is built in memory with
 * bundling skipped (context `aws:cdk:bundling-stacks: []`, set by buildStack).
 */

export const PROBE_CHANNEL = 'C_PROBE';

/** The stack with the probe workflow, as the sandbox synthesizes it. */
export function probeStack(options: Omit<SynthesizeOptions, 'modules'> = {}) {
  return buildStack({
    ...options,
    modules: [KERNEL_PROBE_MODULE],
    config: { channels: { probe: PROBE_CHANNEL }, ...options.config },
  });
}

/** A test module deploying these workflows with the kernel's functions only (their roles: `reporter`). */
export function testModule(...workflows: WorkflowDefinition[]): AnyWorkflowModule {
  return defineWorkflowModule({ name: 'test_module', roles: ['reporter'], workflows });
}

/**
 * Stacks of the default modules and their templates, by configuration, and the probe stack's.
 * Files that share a worker's modules (vitest.config.ts) share these too, so a configuration
 * several files read is built and synthesized once per worker. They are only read (assertions
 * never change them; a test that adds to a stack builds its own); a configuration the stack
 * refuses throws every time, since nothing is kept for it.
 */
interface Built {
  readonly stack: SlackAgentsStack;
  template?: Template;
}
const defaultModuleStacks = new Map<string, Built>();
let probe: Built | undefined;

function builtOf(config: SynthesizeOptions['config']): Built {
  const key = JSON.stringify(config ?? {});
  let built = defaultModuleStacks.get(key);
  if (built === undefined) {
    built = { stack: buildStack(config === undefined ? {} : { config }).stack };
    defaultModuleStacks.set(key, built);
  }
  return built;
}

function templateIn(built: Built): Template {
  built.template ??= Template.fromStack(built.stack);
  return built.template;
}

/** The default modules' stack for this configuration, built once per worker: read it, never add to it. */
export function sharedStack(options: Pick<SynthesizeOptions, 'config'> = {}): SlackAgentsStack {
  return builtOf(options.config).stack;
}

export function templateOf(options: SynthesizeOptions = {}): Template {
  const { config, ...rest } = options;
  if (Object.keys(rest).length > 0) return Template.fromStack(buildStack(options).stack);
  return keptTemplateOf(config);
}

/** The default modules' templates this worker read or made, by configuration. */
const defaultModuleTemplates = new Map<string, Template>();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const templateCache = {
  root: ROOT,
  directory: join(ROOT, '.sandbox', 'test-templates'),
};

/**
 * The default modules' template for `config`, as an earlier synthesis of the same sources and
 * configuration left it (another worker's, an earlier run's), else synthesized here and left
 * for the next. They are kept as the sandbox keeps its templates (local/template-cache.ts), in a
 * folder of their own: the key is the content of every file the template is made of, so an
 * entry is never stale. A configuration the stack refuses throws every time (nothing is kept).
 */
function keptTemplateOf(config: SynthesizeOptions['config']): Template {
  const configKey = JSON.stringify(config ?? {});
  let template = defaultModuleTemplates.get(configKey);
  if (template !== undefined) return template;
  const key = templateKey(templateCache, config);
  const cached = readCachedTemplate(templateCache, key);
  if (cached !== undefined) template = Template.fromJSON(cached);
  else {
    template = templateIn(builtOf(config));
    writeCachedTemplate(templateCache, key, template.toJSON() as CloudFormationTemplate);
  }
  defaultModuleTemplates.set(configKey, template);
  return template;
}

/** `probeStack()`'s stack (the probe workflow on PROBE_CHANNEL), built once per worker: read it, never add to it. */
export function sharedProbeStack(): SlackAgentsStack {
  probe ??= { stack: probeStack().stack };
  return probe.stack;
}

/**
 * The states of the close-out's notice of unhandled messages, the same in every workflow (stated
 * here, not imported: the names are what the graph tests check).
 */
export const UNHANDLED_NOTICE_STATES = {
  anyDrained: 'Anything drained at the close?',
  pick: 'Look for unhandled messages',
  anyUnhandled: 'Any message unhandled?',
} as const;

/** The template of `sharedProbeStack()`. */
export function probeTemplate(): Template {
  sharedProbeStack();
  return templateIn(probe as Built);
}

export type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
};

export function resourcesOfType(template: Template, type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

/** The one resource of a type; fails when there is not exactly one. */
export function onlyResource(template: Template, type: string): [string, Resource] {
  const entries = Object.entries(resourcesOfType(template, type));
  if (entries.length !== 1) throw new Error(`expected one ${type}, found ${entries.length}`);
  return entries[0] as [string, Resource];
}

/** The function resource carrying `slack-agents:function` = id. */
export function functionResource(template: Template, id: string): [string, Resource] {
  const found = Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).find(
    ([, resource]) => resource.Metadata?.['slack-agents:function'] === id,
  );
  if (found === undefined) throw new Error(`no function marked ${id}`);
  return found;
}

/** The logical id of the `AWS::Lambda::Version` this deploy publishes of the function `id`. */
export function publishedVersionOf(template: Template, id: string): string {
  const [functionId] = functionResource(template, id);
  const versions = Object.entries(resourcesOfType(template, 'AWS::Lambda::Version')).filter(
    ([, resource]) => (resource.Properties.FunctionName as { Ref?: string }).Ref === functionId,
  );
  if (versions.length !== 1) throw new Error(`${id} has ${versions.length} published versions, not 1`);
  return (versions[0] as [string, Resource])[0];
}

/** The logical id of the alias (`live`) through which executions of the state machine `stateMachineId` start. */
export function aliasOf(template: Template, stateMachineId: string): string {
  const [versionId] = Object.entries(
    resourcesOfType(template, 'AWS::StepFunctions::StateMachineVersion'),
  ).find(
    ([, version]) => (version.Properties.StateMachineArn as { Ref?: string }).Ref === stateMachineId,
  ) ?? [undefined];
  const [aliasId] = Object.entries(resourcesOfType(template, 'AWS::StepFunctions::StateMachineAlias')).find(
    ([, alias]) =>
      renderIntrinsics(
        (alias.Properties.DeploymentPreference as { StateMachineVersionArn: unknown }).StateMachineVersionArn,
      ) === `<${versionId}.Arn>`,
  ) ?? [undefined];
  if (versionId === undefined || aliasId === undefined) throw new Error(`${stateMachineId} has no alias`);
  return aliasId;
}

/**
 * Renders CloudFormation intrinsics as text placeholders (`<Logical.Arn>`, `<Logical>`), the
 * way the sandbox resolves them, so JSON built with `Fn::Join` can be parsed.
 */
export function renderIntrinsics(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(renderIntrinsics).join(separator);
    }
    if ('Ref' in object) return `<${String(object.Ref)}>`;
    if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

export type AslState = Record<string, unknown> & { Type: string };
export type AslDefinition = { StartAt: string; States: Record<string, AslState> } & Record<string, unknown>;

/** Every state machine's definition, by its `slack-agents:workflow` name. */
export function definitions(template: Template): Map<string, AslDefinition> {
  const result = new Map<string, AslDefinition>();
  for (const resource of Object.values(resourcesOfType(template, 'AWS::StepFunctions::StateMachine'))) {
    const name = resource.Metadata?.['slack-agents:workflow'];
    if (typeof name !== 'string') throw new Error('state machine without slack-agents:workflow metadata');
    result.set(name, JSON.parse(renderIntrinsics(resource.Properties.DefinitionString)) as AslDefinition);
  }
  return result;
}

/** All states of a definition, including those inside Parallel branches and Map processors. */
export function allStates(definition: { States: Record<string, AslState> }): [string, AslState][] {
  return Object.entries(definition.States).flatMap(([name, state]) => {
    const nested = [
      ...((state.Branches as { States: Record<string, AslState> }[] | undefined) ?? []),
      ...[state.ItemProcessor, state.Iterator].filter((inner) => inner !== undefined),
    ] as { States: Record<string, AslState> }[];
    return [[name, state] as [string, AslState], ...nested.flatMap(allStates)];
  });
}

/** Every key anywhere in a JSON value. */
export function allKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allKeys);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...allKeys(inner)]);
  }
  return [];
}

/**
 * A function's variables as its code sees them: the environment with its configuration file
 * (the configuration layer's metadata) applied, the way the bundle's injected entry applies it.
 */
export function variablesOf(template: Template, resource: Resource): Record<string, unknown> {
  const variables = {
    ...(resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
  };
  const path = variables[CONFIG_FILE_VARIABLE];
  if (typeof path !== 'string') return variables;
  const files = Object.values(resourcesOfType(template, 'AWS::Lambda::LayerVersion')).map(
    (layer) =>
      layer.Metadata?.[CONFIG_FILES_METADATA_KEY] as Record<string, Record<string, string>> | undefined,
  );
  const file = files.find((f) => f !== undefined)?.[path.slice(CONFIG_FILE_DIR.length + 1)];
  if (file === undefined) throw new Error(`no configuration file ${path} in the template`);
  delete variables[CONFIG_FILE_VARIABLE];
  return { ...file, ...variables };
}

/** The Router's (or Reconciler's) registrations as JSON text, their state machine ARNs put back. */
export function registrationsText(template: Template, id = 'Router'): string {
  const variables = variablesOf(template, functionResource(template, id)[1]);
  const arns = JSON.parse(renderIntrinsics(variables.WORKFLOW_STATE_MACHINES)) as Record<string, string>;
  return JSON.stringify(withStateMachineArns(JSON.parse(String(variables.WORKFLOWS)), arns));
}

/** A policy statement of a function's role: its actions and resources, intrinsics rendered. */
export type Statement = { actions: string[]; resources: string[] };

/** The statements of the policies attached to function `id`'s role. */
export function statementsOf(template: Template, id: string): Statement[] {
  const [, fn] = functionResource(template, id);
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
    .flatMap((policy) =>
      (
        policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
      ).Statement.map((statement) => ({
        actions: [statement.Action].flat() as string[],
        resources: [statement.Resource].flat().map(renderIntrinsics),
      })),
    );
}
