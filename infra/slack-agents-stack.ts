import { fileURLToPath } from 'node:url';
import { Annotations, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, FunctionUrlAuthType } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { usageOfTrigger } from '../lambdas/kernel/slash-command-help.ts';
import { WorkflowRegistrations } from '../lambdas/kernel/workflows.ts';
import { ENV } from '../lambdas/shared/env.ts';
import { WORKFLOW_MODULES } from '../statemachines/index.ts';
import { KERNEL_FUNCTIONS, type KernelFunctionId } from '../statemachines/kernel-functions.ts';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import {
  CONFIG_CONTEXT_KEY,
  parseConfig,
  type SlackAgentsConfig,
  type SlackAgentsConfigInput,
} from './config.ts';
import { ConversationsTable } from './constructs/conversations-table.ts';
import { addDeployOutputs } from './constructs/deploy-outputs.ts';
import { FailureQueue } from './constructs/failure-queue.ts';
import { FunctionConfiguration } from './constructs/function-configuration.ts';
import { HistoryMcpServer } from './constructs/history-mcp-server.ts';
import { InboxQueue } from './constructs/inbox-queue.ts';
import { IngressSources } from './constructs/ingress-sources.ts';
import { createKernelFunction, type KernelFunction, publishedVersion } from './constructs/kernel-function.ts';
import { deadLetterQueuesIn, Monitoring, MonitoringSettingsSchema } from './constructs/monitoring.ts';
import { createReconciler } from './constructs/reconciler.ts';
import { ThirdPartySecret } from './constructs/third-party-secret.ts';
import { aliasDeployment, DeploymentSettingsSchema } from './deployment-settings.ts';
import { registrationVariables, sharedEnvironment } from './function-environment.ts';
import { acknowledgeFindings } from './nag-acknowledgements.ts';
import { RECORD_VERSIONS_METADATA, recordVersionsMetadata } from './preflight/template-diff.ts';
import { deployModules } from './workflow-modules.ts';

/** The stack's functions by id: the kernel's and every enabled module's. */
export type StackFunctions = ReadonlyMap<string, KernelFunction>;

/** The repository root (this file is `infra/slack-agents-stack.ts`). */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SlackAgentsStackProps extends StackProps {
  /**
   * The workflow modules to deploy: their functions, queues and state machines (and each
   * workflow's children).
   * @default WORKFLOW_MODULES
   */
  readonly modules?: readonly AnyWorkflowModule[];
  /**
   * Stack configuration (see config.ts and each module's section for every field and its default).
   * @default - the `slackAgents` context value, or all defaults when it is absent
   */
  readonly config?: SlackAgentsConfigInput;
}

/**
 * Slack agents on Step Functions: the ingress behind a Function URL, the FIFO
 * inbox, the Router, the kernel task functions, one state machine per workflow, the
 * conversations table and the third-party credentials. Environment-agnostic: it synthesizes
 * without an account or region.
 */
export class SlackAgentsStack extends Stack {
  readonly config: SlackAgentsConfig;
  /** The stack's functions: the kernel's and the enabled modules'. */
  readonly functions: StackFunctions;
  /** Every state machine by workflow name: the workflows and their children. */
  readonly stateMachines: ReadonlyMap<string, StateMachine>;
  /** The functions' configuration files (the variables synth knows), in a layer. */
  readonly configuration: FunctionConfiguration;

  constructor(scope: Construct, id: string, props: SlackAgentsStackProps = {}) {
    super(scope, id, props);
    // What `npm run preflight -- --against` compares with the deployed release's template.
    this.templateOptions.metadata = {
      ...this.templateOptions.metadata,
      [RECORD_VERSIONS_METADATA]: recordVersionsMetadata(),
    };
    const modules = props.modules ?? WORKFLOW_MODULES;
    assertUniqueNames(modules);
    // A deprecated place of a key is shown where `cdk synth` and `cdk deploy` show warnings.
    const config = parseConfig(props.config ?? this.node.tryGetContext(CONFIG_CONTEXT_KEY), modules, {
      onWarning: (message) => Annotations.of(this).addWarningV2('slack-agents:config-moved', message),
    });
    this.config = config;

    const table = new ConversationsTable(this, 'Conversations');
    const inbox = new InboxQueue(this, 'Inbox', {
      // Six times the Router's timeout: the Lambda event source mapping's advice, so a
      // message is not redelivered while a slow batch is still being processed.
      visibilityTimeout: Duration.seconds(6 * KERNEL_FUNCTIONS.Router.timeoutSeconds),
      maxReceiveCount: config.inboxMaxReceiveCount,
    });
    const slackSecret = new ThirdPartySecret(this, 'SlackCredentials', {
      description: 'Slack app credentials: { "signingSecret": "...", "botToken": "xoxb-..." }',
      placeholders: { botToken: 'REPLACE_WITH_SLACK_BOT_TOKEN' },
      generatedField: 'signingSecret',
      issuedBy: 'Slack (the app config page: Basic Information and OAuth & Permissions)',
    });
    // Bedrock authenticates with the functions' roles: the API key secret exists for Anthropic's API only.
    const modelSecret =
      config.model.provider === 'anthropic'
        ? new ThirdPartySecret(this, 'ModelCredentials', {
            description: 'Model provider credentials: { "apiKey": "..." }',
            placeholders: {},
            generatedField: 'apiKey',
            issuedBy: 'Anthropic (the console API keys page)',
          })
        : undefined;

    // Every function gets the same values for the variables it has (see function-environment.ts).
    const environment = sharedEnvironment(config, { table, inbox, slackSecret, modelSecret });
    const functionProps = {
      projectRoot: PROJECT_ROOT,
      environment,
      logRetention: config.logRetentionDays,
      logPii: config.redaction.pii,
    };
    const kernelFunction = (id: KernelFunctionId) =>
      createKernelFunction(this, id, KERNEL_FUNCTIONS[id], functionProps);

    const ingress = kernelFunction('Ingress');
    const registerWait = kernelFunction('RegisterWait');
    const drain = kernelFunction('Drain');
    const slackPost = kernelFunction('SlackPost');
    const approvalWait = kernelFunction('ApprovalWait');
    const deployed = deployModules(this, {
      modules,
      config,
      functionProps,
      table,
      slackSecret,
      modelSecret,
      deployment: aliasDeployment(DeploymentSettingsSchema.parse(config.deployment)),
      // The states call the versions this deploy publishes, never `$LATEST`.
      kernel: {
        registerWait: publishedVersion(registerWait),
        drain: publishedVersion(drain),
        slackPost: publishedVersion(slackPost),
        approvalWait: publishedVersion(approvalWait),
      },
    });
    // The Router parses WORKFLOWS with this schema at runtime; fail the synth instead.
    WorkflowRegistrations.parse(deployed.registrations);

    const router = createKernelFunction(
      this,
      'Router',
      { ...KERNEL_FUNCTIONS.Router, parts: deployed.routerParts },
      {
        ...functionProps,
        environment: {
          ...environment,
          ...registrationVariables(this, deployed.registrations),
          ...deployed.routerEnvironment,
        },
      },
    );
    deployed.connectRouter(router);
    // The Router answers a reply to an ended conversation through SlackPost, invoked
    // asynchronously: an answer that fails after Lambda's retries is kept, not lost.
    router.addEnvironment(ENV.slackPostFunction, slackPost.functionName);
    const slackPostFailures = new FailureQueue(this, 'SlackPostAsyncInvocations', {
      holds:
        "SlackPost's asynchronous invocations (the Router's answers to replies in ended conversations) that failed after Lambda's retries",
    });
    slackPost.configureAsyncInvoke({
      onFailure: new SqsDestination(slackPostFailures.queue),
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
    });
    router.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['lambda:InvokeFunction'],
        resources: [slackPost.functionArn],
      }),
    );

    // Ingress: verifies Slack's signature itself, so the URL needs no AWS auth (Slack cannot sign SigV4).
    const functionUrl = ingress.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    // A public URL: its concurrency is bounded so a flood cannot drain the account's.
    if (config.ingressReservedConcurrency !== null) {
      (ingress.node.defaultChild as CfnFunction).reservedConcurrentExecutions =
        config.ingressReservedConcurrency;
    }
    inbox.queue.grantSendMessages(ingress);
    slackSecret.grantRead(ingress);
    // Envelopes too large for an SQS message wait in the table for the Router.
    table.grantWriteData(ingress);
    const ingressSources = new IngressSources(this, 'IngressSources', {
      ingress,
      slashCommands: deployed.registrations.flatMap((r) =>
        r.triggers.flatMap((t) => (t.type === 'slash_command' ? [t.command] : [])),
      ),
      slashCommandUsage: deployed.registrations.flatMap((r) =>
        r.triggers.flatMap((t) => (t.type === 'slash_command' ? [usageOfTrigger(t)] : [])),
      ),
      alarms: config.alarms,
    });

    router.addEventSource(new SqsEventSource(inbox.queue, { batchSize: 10, reportBatchItemFailures: true }));
    table.grantReadWriteData(router);
    // Roles come from Slack user groups (usergroups.users.list), read with the bot token.
    slackSecret.grantRead(router);
    // A record that can never be routed (not an envelope) is set aside at once, see router.ts.
    inbox.deadLetterQueue.grantSendMessages(router);
    // The workflows only: children are started by their parent, never by a Slack event.
    for (const stateMachine of deployed.startable) stateMachine.grantStartExecution(router);
    router.addToRolePolicy(completeTasks(['states:SendTaskSuccess', 'states:SendTaskFailure']));

    table.grantReadWriteData(registerWait);
    registerWait.addToRolePolicy(completeTasks(['states:SendTaskSuccess']));
    table.grantReadWriteData(drain);
    table.grantReadWriteData(slackPost);
    slackSecret.grantRead(slackPost);
    // Parks a wait's token (and completes it when the decision came first); marks expiries
    // and updates their messages.
    table.grantReadWriteData(approvalWait);
    slackSecret.grantRead(approvalWait);
    approvalWait.addToRolePolicy(completeTasks(['states:SendTaskSuccess']));

    // The sweep for stuck conversations: it starts the workflows like the Router, and wakes waits.
    const reconciler = createReconciler(
      this,
      {
        ...functionProps,
        environment: { ...environment, ...registrationVariables(this, deployed.registrations) },
      },
      config,
    );
    table.grantReadWriteData(reconciler);
    slackSecret.grantRead(reconciler);
    for (const stateMachine of deployed.startable) stateMachine.grantStartExecution(reconciler);
    reconciler.addToRolePolicy(completeTasks(['states:SendTaskSuccess']));

    const historyMcp = config.mcp.historyServer.enabled
      ? new HistoryMcpServer(this, 'HistoryMcpServer', {
          table,
          settings: config.mcp.historyServer,
          functionProps,
        })
      : undefined;

    this.functions = new Map<string, KernelFunction>([
      ['Ingress', ingress],
      ['Router', router],
      ['Reconciler', reconciler],
      ['RegisterWait', registerWait],
      ['Drain', drain],
      ['SlackPost', slackPost],
      ['ApprovalWait', approvalWait],
      ...(historyMcp ? ([['HistoryMcp', historyMcp.function]] as const) : []),
      ...deployed.functions,
    ]);
    this.stateMachines = deployed.stateMachines;
    acknowledgeFindings(this.functions, deployed.stateMachines.values());

    new CfnOutput(this, 'SlackRequestUrl', {
      value: functionUrl.url,
      description: 'Request URL for the Slack app (Event Subscriptions, Interactivity, Slash Commands)',
    });
    new CfnOutput(this, 'ConversationsTableName', { value: table.tableName });
    new CfnOutput(this, 'InboxQueueUrl', { value: inbox.queue.queueUrl });
    addDeployOutputs(this, {
      functionUrl: functionUrl.url,
      secrets: {
        slack: slackSecret,
        model: modelSecret,
        githubWebhook: ingressSources.githubWebhookSecret,
        pagerdutyWebhook: ingressSources.pagerdutyWebhookSecret,
      },
      inboxDeadLetterQueueUrl: inbox.deadLetterQueue.queueUrl,
      stateMachines: this.stateMachines,
    });

    // Last, so that every function, state machine and dead-letter queue above is watched.
    new Monitoring(this, 'Monitoring', {
      settings: MonitoringSettingsSchema.parse(config.monitoring),
      functions: this.functions,
      stateMachines: this.stateMachines,
      deadLetterQueues: new Map([
        ...deadLetterQueuesIn(this),
        ['SlackPostAsyncInvocations', slackPostFailures.queue],
        ...ingressSources.failureQueues,
      ]),
      ingress,
    });
    // After every variable is set: what synth knows goes into files, off Lambda's 4 KB environment.
    this.configuration = new FunctionConfiguration(this, 'FunctionConfiguration', [
      ...this.functions.values(),
    ]);
  }
}

/** Task tokens are not resources: SendTask* only accepts `*`. */
function completeTasks(actions: string[]): PolicyStatement {
  return new PolicyStatement({ effect: Effect.ALLOW, actions, resources: ['*'] });
}

function assertUniqueNames(modules: readonly AnyWorkflowModule[]): void {
  const modulesSeen = new Set<string>();
  const workflowsSeen = new Set<string>();
  for (const module of modules) {
    if (modulesSeen.has(module.name)) throw new Error(`module "${module.name}" is given twice`);
    modulesSeen.add(module.name);
    for (const { name } of module.workflows ?? []) {
      if (workflowsSeen.has(name)) throw new Error(`workflow "${name}" is defined twice`);
      workflowsSeen.add(name);
    }
  }
}
