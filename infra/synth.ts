import { App } from 'aws-cdk-lib';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import type { SlackAgentsConfigInput } from './config.ts';
import { removeScratch, scratchDirectory } from './scratch.ts';
import { SlackAgentsStack } from './slack-agents-stack.ts';

/** The stack's id, and the name `cdk deploy` gives it. */
export const STACK_ID = 'SlackAgents';

/** The stack name a raw configuration asks for (`stackName`, validated with the rest by parseConfig). */
export function stackNameOf(raw: unknown): string {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return STACK_ID;
    }
  }
  const name = (value as { stackName?: unknown } | null)?.stackName;
  return typeof name === 'string' && name !== '' ? name : STACK_ID;
}

export interface SynthesizeOptions {
  /**
   * The workflow modules to include.
   * @default WORKFLOW_MODULES
   */
  readonly modules?: readonly AnyWorkflowModule[];
  /**
   * Stack configuration.
   * @default - every default of config.ts
   */
  readonly config?: SlackAgentsConfigInput;
  /**
   * Build the sandbox's stack: `slackAgents.sandbox` is set unless the configuration sets it,
   * so the fake workspace's ids (the module defaults among them) are allowed. The sandbox and
   * the tests build this way; `cdk synth`/`cdk deploy` (infra/app.ts) and the preflight never
   * do, and a test that checks what AWS would refuse passes `false`.
   * @default true
   */
  readonly sandbox?: boolean;
  /**
   * Bundle the functions with esbuild. Off by default: the template is the same without
   * bundling except for the asset hashes, and skipping it makes synthesis take a second.
   * @default false
   */
  readonly bundling?: boolean;
  /**
   * Run aws-cdk-lib's built-in CloudFormation validation during synthesis (its findings go to
   * the assembly's `validation-report.json`). `cdk synth`, `cdk deploy` (infra/app.ts) and the
   * preflight always run it; the sandbox and the tests skip it, as it costs seconds of CPU per
   * synthesis, and test/infra/preflight-static.test.ts checks that the stack passes it.
   * @default false
   */
  readonly cloudFormationValidation?: boolean;
}

/** Builds the app in memory and returns the stack together with its app. */
export function buildStack(options: SynthesizeOptions = {}): { app: App; stack: SlackAgentsStack } {
  const app = new App({
    // The cloud assembly goes to a directory of this process's own (infra/scratch.ts), not to a
    // new temporary directory per synthesis that nobody removes.
    outdir: scratchDirectory('cdk.out-'),
    // An empty list of stacks to bundle skips esbuild (aws-cdk-lib's documented switch).
    context: options.bundling === true ? {} : { 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: options.cloudFormationValidation ?? false,
    // The assembly's tree.json (every construct's path and properties) is read by nothing here:
    // the template comes out the same without it, and writing it is about a fifth of a
    // synthesis (`npm run bench:synth`). `cdk synth` and `cdk deploy` (infra/app.ts) keep it.
    treeMetadata: false,
  });
  const stack = new SlackAgentsStack(app, STACK_ID, {
    ...(options.modules === undefined ? {} : { modules: options.modules }),
    config: { sandbox: options.sandbox ?? true, ...options.config },
  });
  return { app, stack };
}

/**
 * The CloudFormation template of the stack, as `cdk synth` writes it. The sandbox takes the
 * state machine definitions from it, so it runs exactly what `cdk deploy` deploys: resources
 * carry `Metadata['slack-agents:function']` (the function's id), `Metadata['slack-agents:entry']` and
 * `Metadata['slack-agents:workflow']` (a workflow name).
 */
export function synthesizeTemplate(options: SynthesizeOptions = {}): Record<string, unknown> {
  const { app, stack } = buildStack(options);
  try {
    return app.synth().getStackArtifact(stack.artifactId).template as Record<string, unknown>;
  } finally {
    removeScratch(app.outdir);
  }
}
