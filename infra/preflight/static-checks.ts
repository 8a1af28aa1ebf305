import { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import type { AnyWorkflowModule } from '../../statemachines/workflow-module.ts';
import { InvalidConfigError, parseConfig, type SlackAgentsConfig } from '../config.ts';
import { SANDBOX_NOT_DEPLOYABLE } from '../deployable-config.ts';
import { environmentSizes, LAMBDA_ENVIRONMENT_LIMIT, limitProblems } from '../limits.ts';
import { removeScratch, scratchDirectory } from '../scratch.ts';
import { SlackAgentsStack } from '../slack-agents-stack.ts';
import { stackNameOf } from '../synth.ts';
import { cloudFormationFindings } from './cloudformation-findings.ts';

/**
 * The preflight's static part, which needs no AWS account: the configuration as `cdk synth`
 * validates it, the synthesized stack under cdk-nag's AWS Solutions checks (every enabled
 * option is in the stack the configuration builds) and under aws-cdk-lib's CloudFormation
 * validation (whose findings `cdk synth` only warns about), and the limits AWS enforces at
 * deploy that synth does not (infra/limits.ts).
 */

export interface StaticReport {
  /** One line per problem, each naming what to fix; empty: ready to deploy. */
  readonly problems: readonly string[];
  /** The validated configuration (absent when it did not validate). */
  readonly config?: SlackAgentsConfig;
  readonly stackName: string;
  /** The synthesized template (absent when the configuration did not validate). */
  readonly template?: Record<string, unknown>;
  /** Each function's environment at its longest, bytes. */
  readonly environmentSizes: ReadonlyMap<string, number>;
  readonly synthMilliseconds: number;
}

export function staticPreflight(
  raw: unknown,
  modules: readonly AnyWorkflowModule[] = WORKFLOW_MODULES,
): StaticReport {
  const stackName = stackNameOf(raw);
  let config: SlackAgentsConfig;
  try {
    config = parseConfig(raw, modules);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    return { problems: error.issues, stackName, environmentSizes: new Map(), synthMilliseconds: 0 };
  }
  const problems: string[] = [];
  if (config.sandbox) problems.push(SANDBOX_NOT_DEPLOYABLE);

  const started = performance.now();
  // Bundling is skipped: it changes asset hashes only, and the checks read the template.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: scratchDirectory('cdk.out-') });
  const stack = new SlackAgentsStack(app, stackName, { modules, config: raw as never });
  const report = new AwsSolutionsChecks().validateScope(stack);
  for (const violation of report.violations) {
    for (const resource of violation.violatingResources)
      problems.push(
        `cdk-nag ${violation.ruleName} at ${resource.constructPath}: ${violation.description.split('\n')[0]} (fix it, or acknowledge it with its reason in the stack)`,
      );
  }
  let template: Record<string, unknown>;
  try {
    const assembly = app.synth();
    template = assembly.getStackArtifact(stack.artifactId).template as Record<string, unknown>;
    problems.push(...cloudFormationFindings(assembly.directory));
  } finally {
    removeScratch(app.outdir);
  }
  const synthMilliseconds = performance.now() - started;
  for (const problem of limitProblems(template, stackName))
    problems.push(`limit at ${problem.resource}: ${problem.message}`);
  return {
    problems,
    config,
    stackName,
    template,
    environmentSizes: environmentSizes(template),
    synthMilliseconds,
  };
}

/** The environment figures, one line per function, largest first. */
export function environmentLines(sizes: ReadonlyMap<string, number>): string[] {
  return [...sizes]
    .sort(([, a], [, b]) => b - a)
    .map(([id, size]) => `${id}: ${size} of ${LAMBDA_ENVIRONMENT_LIMIT} bytes`);
}
