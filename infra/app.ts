import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import { CONFIG_CONTEXT_KEY } from './config.ts';
import { SlackAgentsStack } from './slack-agents-stack.ts';
import { STACK_ID } from './synth.ts';

/**
 * The CDK app (`cdk synth`, `cdk deploy`). Configuration comes from the `slackAgents`
 * context (cdk.json or `-c slackAgents='{...}'`); the stack is environment-agnostic.
 * cdk-nag's AWS Solutions checks run as a validation plugin: an unacknowledged finding
 * fails the synth.
 */
const app = new App();
new SlackAgentsStack(app, STACK_ID, {
  modules: WORKFLOW_MODULES,
  config: app.node.tryGetContext(CONFIG_CONTEXT_KEY) ?? {},
  description: 'Slack-native AI agents whose conversations run as Step Functions workflows',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
