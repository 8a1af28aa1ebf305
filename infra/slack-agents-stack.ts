import { fileURLToPath } from 'node:url';
import { type CfnElement, CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Effect, type IRole, Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { type WorkflowRegistration, WorkflowRegistrations } from '../lambdas/kernel/workflows.ts';
import { ENV } from '../lambdas/shared/env.ts';
import { CONVERSATION_HISTORY_TOOL } from '../lambdas/tools/conversation-history.ts';
import { PRODUCTION_WORKFLOWS } from '../statemachines/index.ts';
import {
  type ChildWorkflowDefinition,
  type KernelResources,
  resolveTriggers,
  type WorkflowDefinition,
} from '../statemachines/kernel.ts';
import { FUNCTIONS, type FunctionId } from '../statemachines/kernel-functions.ts';
import {
  CONFIG_CONTEXT_KEY,
  parseConfig,
  type SlackAgentsConfig,
  type SlackAgentsConfigInput,
} from './config.ts';
import { ConversationsTable } from './constructs/conversations-table.ts';
import { InboxQueue } from './constructs/inbox-queue.ts';
import { IngressSources } from './constructs/ingress-sources.ts';
import { createKernelFunction, type KernelFunctionProps } from './constructs/kernel-function.ts';
import { ThirdPartySecret } from './constructs/third-party-secret.ts';
import { createWorkflowStateMachine } from './constructs/workflow-state-machine.ts';

/** The functions a stack has: all of FUNCTIONS, the ChannelResponder only with channel conversations. */
export type StackFunctions = Readonly<
  Record<Exclude<FunctionId, 'ChannelResponder'>, NodejsFunction> &
    Partial<Record<'ChannelResponder', NodejsFunction>>
>;

/** The repository root (this file is `infra/slack-agents-stack.ts`). */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface SlackAgentsStackProps extends StackProps {
  /**
   * The workflows to deploy, one state machine each, plus one per child they declare
   * (SlaTracking for the bug investigation).
   * @default PRODUCTION_WORKFLOWS
   */
  readonly workflows?: readonly WorkflowDefinition[];
  /**
   * Stack configuration (see config.ts for every field and its default).
   * @default - the `slackAgents` context value, or all defaults when it is absent
   */
  readonly config?: SlackAgentsConfigInput;
}

/**
 * Slack agents on Step Functions (DESIGN 2): the ingress behind a Function URL, the FIFO
 * inbox, the Router, the kernel task functions, one state machine per workflow, the
 * conversations table and the third-party credentials. Environment-agnostic: it synthesizes
 * without an account or region.
 */
export class SlackAgentsStack extends Stack {
  readonly config: SlackAgentsConfig;
  /** The stack's functions; ChannelResponder only when channel conversations are enabled. */
  readonly functions: StackFunctions;
  /** Every state machine by workflow name: the workflows and their children. */
  readonly stateMachines: ReadonlyMap<string, StateMachine>;

  constructor(scope: Construct, id: string, props: SlackAgentsStackProps = {}) {
    super(scope, id, props);
    const config = parseConfig(props.config ?? this.node.tryGetContext(CONFIG_CONTEXT_KEY));
    this.config = config;
    const workflows = props.workflows ?? PRODUCTION_WORKFLOWS;
    assertUniqueNames(workflows);

    const table = new ConversationsTable(this, 'Conversations');
    const inbox = new InboxQueue(this, 'Inbox', {
      // Six times the Router's timeout: the Lambda event source mapping's advice, so a
      // message is not redelivered while a slow batch is still being processed.
      visibilityTimeout: Duration.seconds(6 * FUNCTIONS.Router.timeoutSeconds),
      maxReceiveCount: config.inboxMaxReceiveCount,
    });
    const slackSecret = new ThirdPartySecret(this, 'SlackCredentials', {
      description: 'Slack app credentials: { "signingSecret": "...", "botToken": "xoxb-..." }',
      placeholders: { botToken: 'REPLACE_WITH_SLACK_BOT_TOKEN' },
      generatedField: 'signingSecret',
      issuedBy: 'Slack (the app config page: Basic Information and OAuth & Permissions)',
    });
    const modelSecret = new ThirdPartySecret(this, 'ModelCredentials', {
      description: 'Model provider credentials: { "apiKey": "..." }',
      placeholders: {},
      generatedField: 'apiKey',
      issuedBy: 'Anthropic (the console API keys page)',
    });

    // Every function gets the SAME values for the variables it has: the sandbox runs all the
    // handlers in one process with one environment, so two functions must never disagree
    // about a variable. Variables may be absent on some functions: WORKFLOWS is on the Router
    // only, because it holds the state machine ARNs and the state machines reference the
    // kernel task functions; giving those functions WORKFLOWS would be a dependency cycle.
    const environment: Record<string, string> = {
      [ENV.tableName]: table.tableName,
      [ENV.inboxQueueUrl]: inbox.queue.queueUrl,
      [ENV.inboxDeadLetterQueueUrl]: inbox.deadLetterQueue.queueUrl,
      [ENV.slackSecretArn]: slackSecret.secretArn,
      [ENV.modelSecretArn]: modelSecret.secretArn,
      [ENV.botUserId]: config.botUserId,
      [ENV.retentionDays]: String(config.retentionDays),
      [ENV.channels]: JSON.stringify(config.channels),
      [ENV.modelProvider]: config.model.provider,
      [ENV.modelId]: config.model.id,
      [ENV.powertoolsServiceName]: 'slack-agents',
      [ENV.powertoolsMetricsNamespace]: 'SlackAgents',
    };
    const functionProps = { projectRoot: PROJECT_ROOT, environment, logRetention: config.logRetentionDays };

    const ingress = createKernelFunction(this, 'Ingress', functionProps);
    const registerWait = createKernelFunction(this, 'RegisterWait', functionProps);
    const drain = createKernelFunction(this, 'Drain', functionProps);
    const slackPost = createKernelFunction(this, 'SlackPost', functionProps);
    const historyTool = createKernelFunction(this, 'ConversationHistoryTool', functionProps);
    const slaCheck = createKernelFunction(this, 'SlaCheck', functionProps);
    // TOOL_FUNCTIONS is on AgentTurn only: no other function calls tools.
    const agentTurn = createKernelFunction(this, 'AgentTurn', {
      ...functionProps,
      environment: {
        ...environment,
        [ENV.toolFunctions]: this.toJsonString({ [CONVERSATION_HISTORY_TOOL]: historyTool.functionName }),
      },
    });

    const kernel: KernelResources = { registerWait, drain, slackPost, agentTurn, slaCheck, table, config };
    const stateMachines = new Map<string, StateMachine>();
    const children = new Map<string, { definition: ChildWorkflowDefinition; stateMachine: StateMachine }>();
    const childOf = (definition: ChildWorkflowDefinition): StateMachine => {
      const existing = children.get(definition.name);
      if (existing !== undefined) {
        if (existing.definition !== definition)
          throw new Error(`workflow "${definition.name}" is defined twice`);
        return existing.stateMachine;
      }
      const stateMachine = createWorkflowStateMachine(this, {
        name: definition.name,
        build: (scope) => definition.build(scope, kernel),
        ...(definition.timeout === undefined ? {} : { timeout: definition.timeout }),
        logRetention: config.logRetentionDays,
      });
      children.set(definition.name, { definition, stateMachine });
      stateMachines.set(definition.name, stateMachine);
      return stateMachine;
    };
    const registrations: WorkflowRegistration[] = workflows.map((workflow) => {
      const deployedChildren = new Map(
        (workflow.children ?? []).map((child) => [child.name, childOf(child)] as const),
      );
      const stateMachine = createWorkflowStateMachine(this, {
        name: workflow.name,
        build: (scope) => workflow.build(scope, kernel, deployedChildren),
        ...(workflow.timeout === undefined ? {} : { timeout: workflow.timeout }),
        logRetention: config.logRetentionDays,
      });
      // The start of each child is granted by the task that starts it (StepFunctionsStartExecution).
      if (workflow.continuesAsNew === true) allowStartingItself(stateMachine);
      stateMachines.set(workflow.name, stateMachine);
      return {
        workflow: workflow.name,
        stateMachineArn: stateMachine.stateMachineArn,
        triggers: resolveTriggers(workflow, config),
        ownerRole: workflow.ownerRole,
        othersRole: workflow.othersRole,
        closeOnIntent: workflow.closeOnIntent,
      };
    });
    // The Router parses WORKFLOWS with this schema at runtime; fail the synth instead.
    WorkflowRegistrations.parse(registrations);

    // Channel conversations (seed 002): the Router records a channel's messages and hands
    // them to the ChannelResponder through a FIFO queue grouped by channel; the responder
    // decides, calls the model and posts. Off: neither the queue nor the responder exists.
    const { enabled: channelConversationsEnabled, ...channelSettings } = config.channelConversations;
    const channel = channelConversationsEnabled
      ? this.channelResponder(functionProps, {
          [ENV.channelConversations]: JSON.stringify(channelSettings),
          maxReceiveCount: config.inboxMaxReceiveCount,
          table,
          slackSecret,
          modelSecret,
        })
      : undefined;
    const router = createKernelFunction(this, 'Router', {
      ...functionProps,
      environment: {
        ...environment,
        [ENV.workflows]: this.toJsonString(registrations),
        ...(channel
          ? {
              [ENV.channelConversations]: JSON.stringify(channelSettings),
              [ENV.channelRepliesQueueUrl]: channel.replies.queue.queueUrl,
            }
          : {}),
      },
    });
    channel?.replies.queue.grantSendMessages(router);
    // The Router answers a reply to an ended conversation through SlackPost, invoked asynchronously.
    router.addEnvironment(ENV.slackPostFunction, slackPost.functionName);
    router.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['lambda:InvokeFunction'],
        resources: [slackPost.functionArn],
      }),
    );

    // Ingress: verifies Slack's signature itself, so the URL needs no AWS auth (Slack cannot sign SigV4).
    const functionUrl = ingress.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    inbox.queue.grantSendMessages(ingress);
    slackSecret.grantRead(ingress);
    // Envelopes too large for an SQS message wait in the table for the Router.
    table.grantWriteData(ingress);
    new IngressSources(this, 'IngressSources', {
      ingress,
      slashCommands: registrations.flatMap((r) =>
        r.triggers.flatMap((t) => (t.type === 'slash_command' ? [t.command] : [])),
      ),
      alarms: config.alarms,
    });

    router.addEventSource(new SqsEventSource(inbox.queue, { batchSize: 10, reportBatchItemFailures: true }));
    table.grantReadWriteData(router);
    // A record that can never be routed (not an envelope) is set aside at once, see router.ts.
    inbox.deadLetterQueue.grantSendMessages(router);
    // The workflows only: children are started by their parent, never by a Slack event.
    for (const workflow of workflows) stateMachines.get(workflow.name)?.grantStartExecution(router);
    router.addToRolePolicy(completeTasks(['states:SendTaskSuccess', 'states:SendTaskFailure']));

    table.grantReadWriteData(registerWait);
    registerWait.addToRolePolicy(completeTasks(['states:SendTaskSuccess']));
    table.grantReadWriteData(drain);
    table.grantReadWriteData(slackPost);
    slackSecret.grantRead(slackPost);

    // AgentTurn: transcripts and the ledger in the table, the model key, and its tools.
    table.grantReadWriteData(agentTurn);
    modelSecret.grantRead(agentTurn);
    // The function itself (the invoker calls it by name), not `grantInvoke`'s `<arn>:*` too.
    agentTurn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['lambda:InvokeFunction'],
        resources: [historyTool.functionArn],
      }),
    );
    table.grantReadData(historyTool);
    table.grantReadData(slaCheck);

    this.functions = {
      Ingress: ingress,
      Router: router,
      RegisterWait: registerWait,
      Drain: drain,
      SlackPost: slackPost,
      AgentTurn: agentTurn,
      ConversationHistoryTool: historyTool,
      SlaCheck: slaCheck,
      ...(channel ? { ChannelResponder: channel.responder } : {}),
    };
    this.stateMachines = stateMachines;
    acknowledgeFindings(this.functions, stateMachines.values());

    new CfnOutput(this, 'SlackRequestUrl', {
      value: functionUrl.url,
      description: 'Request URL for the Slack app (Event Subscriptions, Interactivity, Slash Commands)',
    });
    new CfnOutput(this, 'ConversationsTableName', { value: table.tableName });
    new CfnOutput(this, 'InboxQueueUrl', { value: inbox.queue.queueUrl });
  }

  /** The channel replies queue and the ChannelResponder reading it, one channel's messages at a time. */
  private channelResponder(
    functionProps: KernelFunctionProps,
    props: {
      [ENV.channelConversations]: string;
      maxReceiveCount: number;
      table: ConversationsTable;
      slackSecret: ThirdPartySecret;
      modelSecret: ThirdPartySecret;
    },
  ): { replies: InboxQueue; responder: NodejsFunction } {
    const replies = new InboxQueue(this, 'ChannelReplies', {
      visibilityTimeout: Duration.seconds(6 * FUNCTIONS.ChannelResponder.timeoutSeconds),
      maxReceiveCount: props.maxReceiveCount,
    });
    const responder = createKernelFunction(this, 'ChannelResponder', {
      ...functionProps,
      environment: {
        ...functionProps.environment,
        [ENV.channelConversations]: props[ENV.channelConversations],
        [ENV.channelRepliesDeadLetterQueueUrl]: replies.deadLetterQueue.queueUrl,
      },
    });
    // One message per invocation: each may take a model call (and the judge's) with retries.
    responder.addEventSource(
      new SqsEventSource(replies.queue, { batchSize: 1, reportBatchItemFailures: true }),
    );
    replies.deadLetterQueue.grantSendMessages(responder);
    props.table.grantReadWriteData(responder);
    props.modelSecret.grantRead(responder);
    props.slackSecret.grantRead(responder);
    return { replies, responder };
  }
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

/** Task tokens are not resources: SendTask* only accepts `*`. */
function completeTasks(actions: string[]): PolicyStatement {
  return new PolicyStatement({ effect: Effect.ALLOW, actions, resources: ['*'] });
}

function assertUniqueNames(workflows: readonly WorkflowDefinition[]): void {
  const seen = new Set<string>();
  for (const { name } of workflows) {
    if (seen.has(name)) throw new Error(`workflow "${name}" is defined twice`);
    seen.add(name);
  }
}

/**
 * cdk-nag findings that are accepted, each with its reason, kept in one place so a reviewer
 * sees every exception at once (the secrets' rotation finding is acknowledged by
 * ThirdPartySecret). cdk-nag 3 matches findings exactly, so each is named in full.
 */
function acknowledgeFindings(functions: StackFunctions, stateMachines: Iterable<StateMachine>): void {
  const taskTokenReason =
    ' and states:SendTaskSuccess/SendTaskFailure, which act on task tokens, not on resources';
  for (const [id, fn] of Object.entries(functions) as [FunctionId, NodejsFunction][]) {
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'NODEJS_22_X is pinned on purpose (DESIGN 6): the handlers are built and tested for Node 22; a runtime upgrade is a deliberate change with its own test run.',
    });
    const completesTasks = id === 'Router' || id === 'RegisterWait';
    Validations.of(requireRole(fn)).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `Resource::* only for actions without resource-level permissions: X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords)${completesTasks ? taskTokenReason : ''}.`,
    });
  }
  for (const stateMachine of stateMachines) {
    Validations.of(stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Resource::* only for actions without resource-level permissions: CloudWatch Logs vended log delivery (logs:*LogDelivery*, logs:PutResourcePolicy) and X-Ray tracing (xray:Put*, xray:GetSampling*).',
    });
    for (const [id, logicalId] of invokedFunctions(stateMachine, functions)) {
      Validations.of(stateMachine.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`,
        reason: `The LambdaInvoke task grants ${id}'s versions and aliases (<arn>:*): still the one task function, no other.`,
      });
    }
  }
}

/**
 * The functions a state machine's role may invoke, with their logical ids: read from its
 * policy, so each workflow's acknowledgments name exactly the functions its tasks call.
 */
function invokedFunctions(stateMachine: StateMachine, functions: StackFunctions): [FunctionId, string][] {
  const stack = Stack.of(stateMachine);
  const policy = stateMachine.role.node.tryFindChild('DefaultPolicy');
  if (!(policy instanceof Policy)) return [];
  const rendered = JSON.stringify(stack.resolve(policy.document));
  return (Object.entries(functions) as [FunctionId, NodejsFunction][])
    .map(([id, fn]): [FunctionId, string] => [id, stack.getLogicalId(fn.node.defaultChild as CfnElement)])
    .filter(([, logicalId]) => rendered.includes(`"${logicalId}"`));
}

function requireRole(fn: NodejsFunction): IRole {
  if (fn.role === undefined) throw new Error(`${fn.node.id} has no execution role`);
  return fn.role;
}
