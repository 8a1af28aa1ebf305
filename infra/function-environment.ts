import type { Stack } from 'aws-cdk-lib';
import { requirePriceOf } from '../lambdas/agents/pricing.ts';
import { ENV } from '../lambdas/shared/env.ts';
import type { SlackAgentsConfig } from './config.ts';
import type { ConversationsTable } from './constructs/conversations-table.ts';
import type { InboxQueue } from './constructs/inbox-queue.ts';
import type { ThirdPartySecret } from './constructs/third-party-secret.ts';

/**
 * The stack's functions' environment variables: the ones every function gets, and the
 * workflows' registrations that only the Router and the Reconciler get. Every function gets the
 * SAME values for the variables it has: the sandbox runs all the handlers in one process with
 * one environment, so two functions must never disagree about a variable.
 */

/** What the variables every function gets point at. */
export interface SharedResources {
  readonly table: ConversationsTable;
  readonly inbox: InboxQueue;
  readonly slackSecret: ThirdPartySecret;
  readonly modelSecret: ThirdPartySecret | undefined;
}

/**
 * The variables every function gets. Variables may be absent on some functions: WORKFLOWS is
 * on the Router only (`registrationVariables`), because it holds the state machine ARNs and the
 * state machines reference the task functions; giving those functions WORKFLOWS would be a
 * dependency cycle.
 */
export function sharedEnvironment(
  config: SlackAgentsConfig,
  resources: SharedResources,
): Record<string, string> {
  const { table, inbox, slackSecret, modelSecret } = resources;
  return {
    [ENV.tableName]: table.tableName,
    [ENV.inboxQueueUrl]: inbox.queue.queueUrl,
    [ENV.inboxDeadLetterQueueUrl]: inbox.deadLetterQueue.queueUrl,
    [ENV.slackSecretArn]: slackSecret.secretArn,
    ...(modelSecret ? { [ENV.modelSecretArn]: modelSecret.secretArn } : {}),
    ...(config.botUserId ? { [ENV.botUserId]: config.botUserId } : {}),
    ...(config.github.login ? { [ENV.githubLogin]: config.github.login } : {}),
    [ENV.retentionDays]: String(config.retentionDays),
    [ENV.channels]: JSON.stringify(config.channels),
    [ENV.people]: JSON.stringify(config.people),
    [ENV.approvals]: JSON.stringify(config.approvals),
    [ENV.modelProvider]: config.model.provider,
    [ENV.modelId]: config.model.id,
    [ENV.agentLimits]: JSON.stringify(config.agentLimits),
    [ENV.untrustedText]: config.untrustedText,
    [ENV.redaction]: JSON.stringify(config.redaction),
    // The agents' toolsets only: who reads the history server is that server's own variable.
    ...(config.mcp.servers.length > 0
      ? { [ENV.mcp]: JSON.stringify({ ...config.mcp, historyServer: undefined }) }
      : {}),
    ...(config.bedrock.guardrail ? { [ENV.bedrockGuardrail]: JSON.stringify(config.bedrock.guardrail) } : {}),
    ...(config.liveProgress ? {} : { [ENV.liveProgress]: 'off' }),
    // parseConfig made sure the model has a price.
    [ENV.modelPrice]: JSON.stringify(requirePriceOf(config.model.id, config.modelPrices)),
    [ENV.powertoolsServiceName]: 'slack-agents',
    [ENV.powertoolsMetricsNamespace]: 'SlackAgents',
  };
}

/**
 * The registrations for the Router and the Reconciler: the triggers (known at synth, so they
 * go to the configuration file) apart from the state machines' ARNs (known at deploy).
 */
export function registrationVariables(
  stack: Stack,
  registrations: readonly { readonly workflow: string; readonly stateMachineArn: string }[],
): Record<string, string> {
  return {
    [ENV.workflows]: JSON.stringify(registrations.map(({ stateMachineArn: _arn, ...rest }) => rest)),
    [ENV.workflowStateMachines]: stack.toJsonString(
      Object.fromEntries(registrations.map((r) => [r.workflow, r.stateMachineArn])),
    ),
  };
}
