import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import { CONFIG_CONTEXT_KEY, InvalidConfigError } from './config.ts';
import { deployableConfig } from './deployable-config.ts';
import { SlackAgentsStack } from './slack-agents-stack.ts';
import { stackNameOf } from './synth.ts';

/**
 * The CDK app (`cdk synth`, `cdk deploy`). Configuration comes from the `slackAgents`
 * context (cdk.json or `-c slackAgents='{...}'`); the stack is environment-agnostic, named
 * `stackName` (default `SlackAgents`). cdk-nag's AWS Solutions checks run as a validation
 * plugin: an unacknowledged finding fails the synth. A configuration that cannot work in AWS
 * stops here with one line per problem, and the sandbox's own is never deployed.
 */
const app = new App();
const config = app.node.tryGetContext(CONFIG_CONTEXT_KEY) ?? {};
try {
  // The configuration is refused before any construct is built (the stack parses it the same way).
  deployableConfig(config, WORKFLOW_MODULES);
  new SlackAgentsStack(app, stackNameOf(config), {
    modules: WORKFLOW_MODULES,
    config,
    description: 'Slack-native AI agents whose conversations run as Step Functions workflows',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
} catch (error) {
  if (!(error instanceof InvalidConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
