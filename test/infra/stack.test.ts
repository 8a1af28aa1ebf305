import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { scratchDirectory } from '../../infra/scratch.ts';
import { SlackAgentsStack } from '../../infra/slack-agents-stack.ts';
import { buildStack } from '../../infra/synth.ts';
import { DEFAULT_MODEL_PRICES } from '../../lambdas/agents/pricing.ts';
import { WorkflowRegistrations } from '../../lambdas/kernel/workflows.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { CHANNEL_ENV } from '../../lambdas/workflows/channel-conversations/env.ts';
import { WORKFLOW_MODULES } from '../../statemachines/index.ts';
import { type FunctionSpec, KERNEL_FUNCTIONS } from '../../statemachines/kernel-functions.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import type { AnyWorkflowModule } from '../../statemachines/workflow-module.ts';
import {
  aliasOf,
  functionResource,
  onlyResource,
  PROBE_CHANNEL,
  publishedVersionOf,
  type Resource,
  registrationsText,
  renderIntrinsics,
  resourcesOfType,
  templateOf,
  variablesOf,
} from './template.ts';

/** The production modules and the probe, so the kernel's wiring is seen beside every module's. */
const template = Template.fromStack(
  buildStack({
    modules: [KERNEL_PROBE_MODULE, ...WORKFLOW_MODULES],
    config: { channels: { probe: PROBE_CHANNEL } },
  }).stack,
);

/** Every function of that stack: the kernel's and the modules', but those their default settings disable. */
const defaults = parseConfig({ sandbox: true, channels: { probe: PROBE_CHANNEL } });
const FUNCTIONS: Record<string, FunctionSpec> = Object.assign(
  {},
  KERNEL_FUNCTIONS,
  ...[KERNEL_PROBE_MODULE, ...WORKFLOW_MODULES].map((module: AnyWorkflowModule) => {
    const settings = module.settings === undefined ? undefined : defaults[module.settings.key];
    // A module its settings do not enable deploys nothing (the issue pipeline without a repository).
    if (module.enabled?.(settings) === false) return {};
    const disabled = new Set<string>(module.disabledFunctions?.(settings) ?? []);
    return Object.fromEntries(Object.entries(module.functions ?? {}).filter(([id]) => !disabled.has(id)));
  }),
);

/** The queue whose logical id is `prefix` followed by the queue's own id and CDK's hash. */
function queueResource(of: Template, prefix: string): [string, Resource] {
  const found = Object.entries(resourcesOfType(of, 'AWS::SQS::Queue')).filter(([id]) =>
    new RegExp(`^${prefix}(Queue)?[0-9A-F]{8}$`).test(id),
  );
  if (found.length !== 1 || !found[0]) throw new Error(`expected one ${prefix} queue, found ${found.length}`);
  return found[0];
}

function environmentOf(id: string): Record<string, unknown> {
  const [, fn] = functionResource(template, id);
  return variablesOf(template, fn);
}

describe('conversations table', () => {
  it('is on-demand, point-in-time recoverable, encrypted, expiring by `ttl`, and retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('inbox queue', () => {
  const queues = Object.entries(resourcesOfType(template, 'AWS::SQS::Queue')).filter(([id]) =>
    id.startsWith('Inbox'),
  );
  const inbox = queues.find(([, queue]) => queue.Properties.RedrivePolicy !== undefined);
  const deadLetters = queues.find(([, queue]) => queue.Properties.RedrivePolicy === undefined);

  it('is a FIFO queue with explicit deduplication ids and encryption at rest', () => {
    expect(inbox?.[1].Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      SqsManagedSseEnabled: true,
    });
  });

  it('hides a message for at least six times the Router timeout', () => {
    expect(inbox?.[1].Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * KERNEL_FUNCTIONS.Router.timeoutSeconds,
    );
  });

  it('moves a message to a FIFO dead-letter queue after the configured deliveries', () => {
    expect(inbox?.[1].Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters?.[0], 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(deadLetters?.[1].Properties).toMatchObject({ FifoQueue: true, SqsManagedSseEnabled: true });
  });

  it('takes maxReceiveCount from the configuration', () => {
    const configured = Template.fromStack(buildStack({ config: { inboxMaxReceiveCount: 3 } }).stack);
    configured.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }),
    });
  });

  it('refuses requests without TLS on every queue (inbox and channel replies with their DLQs, SlackPost’s failure queue)', () => {
    const policies = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy'));
    const denied = policies.map((policy) =>
      (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement.find(
        (statement) =>
          statement.Effect === 'Deny' &&
          JSON.stringify(statement.Condition) ===
            JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
      ),
    );
    expect(policies).toHaveLength(5);
    expect(denied.every((statement) => statement !== undefined)).toBe(true);
  });
});

describe('functions', () => {
  const functions = resourcesOfType(template, 'AWS::Lambda::Function');

  it('are exactly the FUNCTIONS, each marked with its key', () => {
    const marked = Object.values(functions).map((fn) => fn.Metadata?.['slack-agents:function']);
    expect(marked.sort()).toEqual(Object.keys(FUNCTIONS).sort());
  });

  it('keep their FUNCTIONS key as the start of their logical id', () => {
    for (const id of Object.keys(FUNCTIONS))
      expect(functionResource(template, id)[0]).toMatch(new RegExp(`^${id}[0-9A-F]{8}$`));
  });

  it('run Node.js 22 on arm64, traced, with the handler export', () => {
    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
    }
  });

  it('take timeout and memory from FUNCTIONS', () => {
    for (const [id, spec] of Object.entries(FUNCTIONS)) {
      expect(functionResource(template, id)[1].Properties).toMatchObject({
        Timeout: spec.timeoutSeconds,
        MemorySize: spec.memoryMb,
      });
    }
  });

  it('log to their own log group with a retention', () => {
    for (const fn of Object.values(functions)) {
      const logGroup = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(template.toJSON().Resources[logGroup].Properties.RetentionInDays).toBe(90);
    }
  });
});

describe('function environment', () => {
  it('gives a variable the same value on every function that has it (the sandbox shares one process)', () => {
    const valuesByName = new Map<string, Set<string>>();
    for (const id of Object.keys(FUNCTIONS)) {
      for (const [name, value] of Object.entries(environmentOf(id))) {
        const values = valuesByName.get(name) ?? new Set<string>();
        values.add(JSON.stringify(value));
        valuesByName.set(name, values);
      }
    }
    // Each agent function names its own tools; the sandbox merges the maps (sandbox-resources.ts).
    const conflicting = [...valuesByName]
      .filter(([name, values]) => values.size > 1 && name !== ENV.toolFunctions)
      .map(([name]) => name);
    expect(conflicting).toEqual([]);
  });

  it('sets WORKFLOWS on the Router and the Reconciler only (the state machines reference the other functions)', () => {
    const withWorkflows = Object.keys(FUNCTIONS).filter((id) => ENV.workflows in environmentOf(id));
    expect(withWorkflows.sort()).toEqual(['Reconciler', 'Router']);
  });

  it('runs the Reconciler on a schedule, every five minutes by default', () => {
    const [reconcilerId] = functionResource(template, 'Reconciler');
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [reconcilerId, 'Arn'] } })],
    });
    expect(JSON.parse(String(environmentOf('Reconciler').RECONCILER))).toEqual({
      olderThanSeconds: 300,
      maxRepairs: 3,
    });
  });

  it("gives the agent turns the configured model's price, resolved at synth", () => {
    for (const id of ['BugInvestigationAgentTurn', 'RequirementsInterviewAgentTurn']) {
      expect(JSON.parse(String(environmentOf(id)[ENV.modelPrice]))).toEqual(
        DEFAULT_MODEL_PRICES['claude-sonnet-5-5'],
      );
    }
  });

  it('gives the Router the probe registration when the probe workflow is deployed', () => {
    const [stateMachineId] = stateMachineOf(template, 'kernel_probe');
    const registrations = WorkflowRegistrations.parse(JSON.parse(registrationsText(template)));
    expect(registrations.filter((registration) => registration.workflow === 'kernel_probe')).toEqual([
      {
        workflow: 'kernel_probe',
        stateMachineArn: `<${aliasOf(template, stateMachineId)}.Arn>`,
        triggers: [
          { type: 'channel_message', channel: PROBE_CHANNEL },
          { type: 'github_issue_labeled', repository: 'Codertocat/Hello-World', label: 'bug' },
          { type: 'github_pull_request_review', repository: 'Codertocat/Hello-World' },
          { type: 'alert', source: 'cloudwatch', namePrefixes: ['probe-'] },
          { type: 'alert', source: 'pagerduty' },
        ],
        ownerRole: 'reporter',
        othersRole: null,
        closeOnIntent: true,
      },
    ]);
  });

  it('registers the bug investigation and the requirements interview in the production stack, and not SlaTracking', () => {
    const production = templateOf();
    const registrations = WorkflowRegistrations.parse(JSON.parse(registrationsText(production)));
    expect(registrations).toEqual([
      {
        workflow: 'bug_investigation',
        stateMachineArn: `<${aliasOf(production, stateMachineOf(production, 'bug_investigation')[0])}.Arn>`,
        triggers: [{ type: 'channel_message', channel: 'C_BUG_REPORTS' }],
        ownerRole: 'reporter',
        othersRole: null,
        closeOnIntent: true,
      },
      {
        workflow: 'requirements_interview',
        stateMachineArn: `<${aliasOf(production, stateMachineOf(production, 'requirements_interview')[0])}.Arn>`,
        triggers: [
          {
            type: 'slash_command',
            command: '/prd',
            description: 'Start a requirements interview: the bot asks about your idea, then writes a PRD',
            usageHint: '<product idea>',
          },
          {
            type: 'mention',
            keywords: ['prd', 'idea', 'product idea', 'feature idea', 'requirements'],
            channels: [],
          },
        ],
        ownerRole: 'requester',
        othersRole: 'participant',
        closeOnIntent: true,
      },
      {
        workflow: 'incident_investigation',
        stateMachineArn: `<${aliasOf(production, stateMachineOf(production, 'incident_investigation')[0])}.Arn>`,
        triggers: [
          {
            type: 'slash_command',
            command: '/investigate',
            description:
              'Investigate an incident: hypotheses tested against telemetry, a cited conclusion, approved fixes',
            usageHint: '<description, alarm name or PagerDuty incident id>',
            // A repeated /investigate of a running incident answers with its thread.
            names: {
              names: [
                { anchor: 'alarm_name', names: [], prefixes: [] },
                { anchor: 'alert', source: 'pagerduty' },
              ],
              anchored: false,
              once: false,
            },
          },
        ],
        ownerRole: 'responder',
        othersRole: 'responder',
        closeOnIntent: true,
      },
    ]);
    production.resourceCountIs('AWS::StepFunctions::StateMachine', 4);
  });

  it('gives TOOL_FUNCTIONS to the agent turns that call tools only, naming the history tool function', () => {
    const withTools = Object.keys(FUNCTIONS).filter((id) => ENV.toolFunctions in environmentOf(id));
    expect(withTools).toEqual(['BugInvestigationAgentTurn', 'IncidentAgentTurn']);
    const [historyToolId] = functionResource(template, 'ConversationHistoryTool');
    expect(
      JSON.parse(renderIntrinsics(environmentOf('BugInvestigationAgentTurn')[ENV.toolFunctions])),
    ).toEqual({
      get_bug_conversations: `<${historyToolId}>`,
    });
    const [telemetryId] = functionResource(template, 'IncidentTelemetryTools');
    expect(JSON.parse(renderIntrinsics(environmentOf('IncidentAgentTurn')[ENV.toolFunctions]))).toEqual({
      query_logs: `<${telemetryId}>`,
      query_metrics: `<${telemetryId}>`,
      recent_deployments: `<${telemetryId}>`,
      service_map: `<${telemetryId}>`,
      get_incident: `<${telemetryId}>`,
    });
  });

  it('gives the agent and tool functions the kernel settings too', () => {
    for (const id of [
      'BugInvestigationAgentTurn',
      'RequirementsInterviewAgentTurn',
      'ConversationHistoryTool',
      'SlaCheck',
    ]) {
      expect(environmentOf(id), id).toMatchObject({
        [ENV.tableName]: { Ref: onlyResource(template, 'AWS::DynamoDB::Table')[0] },
        [ENV.modelProvider]: 'anthropic',
        [ENV.modelId]: 'claude-sonnet-5-5',
      });
    }
  });

  it('carries the kernel settings every handler reads', () => {
    expect(environmentOf('Drain')).toMatchObject({
      [ENV.tableName]: { Ref: onlyResource(template, 'AWS::DynamoDB::Table')[0] },
      [ENV.botUserId]: 'U_BOT',
      [ENV.retentionDays]: '90',
      [ENV.channels]: JSON.stringify({
        bugReports: 'C_BUG_REPORTS',
        bugSummaries: 'C_BUG_SUMMARIES',
        developers: 'C_DEVELOPERS',
        issuePipeline: 'C_DEVELOPERS',
        incidents: 'C_INCIDENTS',
        probe: PROBE_CHANNEL,
      }),
      [ENV.people]: JSON.stringify({
        developer: { groups: ['S_DEVELOPERS'], users: [] },
        on_call: { groups: ['S_ONCALL'], users: [] },
        incident_approver: { groups: ['S_ONCALL'], users: [] },
      }),
      [ENV.approvals]: JSON.stringify({
        mcp_tool_call: ['incident_approver'],
        acknowledge_escalation: ['on_call'],
        request_fix: ['developer'],
        approve_protected_fix: ['developer'],
        approve_sensitive_change: ['developer'],
        remediation_step: ['incident_approver'],
      }),
      [ENV.untrustedText]: 'label',
      [ENV.powertoolsServiceName]: 'slack-agents',
      [ENV.powertoolsMetricsNamespace]: 'SlackAgents',
    });
    for (const name of [ENV.inboxQueueUrl, ENV.slackSecretArn, ENV.modelSecretArn]) {
      expect(environmentOf('Drain')).toHaveProperty(name);
    }
  });

  it('reads the configuration from the `slackAgents` context when no props are given', () => {
    const app = new App({
      outdir: scratchDirectory('cdk.out-'),
      context: { 'aws:cdk:bundling-stacks': [], slackAgents: { sandbox: true, botUserId: 'U0CONTEXT' } },
    });
    const stack = new SlackAgentsStack(app, 'FromContext');
    expect(stack.config.botUserId).toBe('U0CONTEXT');
  });
});

describe('entry points and wiring', () => {
  it('exposes the Ingress through a Function URL without AWS auth (Slack signs its requests)', () => {
    const [ingressId] = functionResource(template, 'Ingress');
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [ingressId, 'Arn'] },
    });
  });

  it('feeds the inbox to the Router in batches that report item failures', () => {
    const [routerId] = functionResource(template, 'Router');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: routerId },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('lets the Router start the workflow state machines', () => {
    const [stateMachineId] = stateMachineOf(template, 'kernel_probe');
    expect(actionsOf('Router')).toContainEqual({
      actions: ['states:StartExecution'],
      resource: `<${stateMachineId}>`,
    });
  });

  it('gives the Ingress nothing but the inbox, its secrets and table writes for large envelopes (plus logs and traces)', () => {
    const services = new Set(
      actionsOf('Ingress').flatMap(({ actions }) => actions.map((a) => a.split(':')[0])),
    );
    expect([...services].sort()).toEqual(['dynamodb', 'logs', 'secretsmanager', 'sqs', 'xray']);
    const dynamodb = actionsOf('Ingress').flatMap(({ actions }) =>
      actions.filter((a) => a.startsWith('dynamodb:')),
    );
    expect(dynamodb).not.toContain('dynamodb:GetItem');
    expect(dynamodb).not.toContain('dynamodb:Query');
  });

  it('keeps the Slack secret from the functions that do not post or verify', () => {
    for (const id of ['RegisterWait', 'Drain']) {
      expect(actionsOf(id).flatMap(({ actions }) => actions)).not.toContain('secretsmanager:GetSecretValue');
    }
  });

  it('lets the Router hand channel messages to the replies queue, and read only the Slack secret (user groups, never the model)', () => {
    const [repliesId] = queueResource(template, 'ChannelReplies');
    expect(actionsOf('Router')).toContainEqual({
      actions: expect.arrayContaining(['sqs:SendMessage']),
      resource: `<${repliesId}.Arn>`,
    });
    const secrets = resourcesOfType(template, 'AWS::SecretsManager::Secret');
    const slackSecretId = Object.entries(secrets).find(([id]) => id.startsWith('SlackCredentials'))?.[0];
    const secretReads = actionsOf('Router').filter(({ actions }) =>
      actions.includes('secretsmanager:GetSecretValue'),
    );
    expect(secretReads.map(({ resource }) => resource)).toEqual([`<${slackSecretId}>`]);
    expect(environmentOf('Router')[CHANNEL_ENV.repliesQueueUrl]).toEqual({ Ref: repliesId });
  });

  it('feeds the replies queue to the ChannelResponder one message at a time, reporting failures', () => {
    const [responderId] = functionResource(template, 'ChannelResponder');
    const [repliesId, replies] = queueResource(template, 'ChannelReplies');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: responderId },
      EventSourceArn: { 'Fn::GetAtt': [repliesId, 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(replies.Properties).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false });
    expect(replies.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * (FUNCTIONS.ChannelResponder?.timeoutSeconds ?? Number.NaN),
    );
    expect(replies.Properties.RedrivePolicy).toMatchObject({ maxReceiveCount: 5 });
  });

  it('lets the ChannelResponder read the model and Slack secrets and set aside what it cannot read', () => {
    // The model and Slack secrets; the webhook secrets are the ingress's alone.
    const secretIds = Object.keys(resourcesOfType(template, 'AWS::SecretsManager::Secret')).filter(
      (id) => !id.startsWith('IngressSources'),
    );
    const reads = actionsOf('ChannelResponder').filter(({ actions }) =>
      actions.includes('secretsmanager:GetSecretValue'),
    );
    expect(reads.map(({ resource }) => resource).sort()).toEqual(secretIds.map((id) => `<${id}>`).sort());
    const [deadLettersId] = queueResource(template, 'ChannelRepliesDeadLetters');
    expect(actionsOf('ChannelResponder')).toContainEqual({
      actions: expect.arrayContaining(['sqs:SendMessage']),
      resource: `<${deadLettersId}.Arn>`,
    });
    expect(environmentOf('ChannelResponder')[CHANNEL_ENV.repliesDeadLetterQueueUrl]).toEqual({
      Ref: deadLettersId,
    });
  });

  it('gives the Router and the ChannelResponder the channel conversation settings from the configuration', () => {
    const configured = Template.fromStack(
      buildStack({ config: { channelConversations: { timeoutSeconds: 300, useLlmJudge: true } } }).stack,
    );
    for (const id of ['Router', 'ChannelResponder']) {
      const [, fn] = functionResource(configured, id);
      const variables = variablesOf(configured, fn) as Record<string, string>;
      expect(JSON.parse(variables[CHANNEL_ENV.settings] ?? '{}')).toEqual({
        timeoutSeconds: 300,
        followupWindowSeconds: 60,
        useLlmJudge: true,
        judgeModelId: 'claude-haiku-4-5',
        recentHistoryMessages: 20,
      });
    }
  });

  it("prices the ChannelResponder's models like the agents': MODEL_PRICE, the limits, and the judge's own price", () => {
    const configured = Template.fromStack(
      buildStack({
        config: {
          channelConversations: { useLlmJudge: true },
          modelPrices: {
            'claude-haiku-4-5': {
              inputPerMillion: 0.8,
              outputPerMillion: 4,
              cacheWritePerMillion: 1,
              cacheReadPerMillion: 0.08,
            },
          },
          agentLimits: { maxDailyCostUsd: 25 },
        },
      }).stack,
    );
    const [, fn] = functionResource(configured, 'ChannelResponder');
    const variables = variablesOf(configured, fn) as Record<string, string>;
    expect(JSON.parse(variables[CHANNEL_ENV.judgePrice] ?? '{}')).toEqual({
      inputPerMillion: 0.8,
      outputPerMillion: 4,
      cacheWritePerMillion: 1,
      cacheReadPerMillion: 0.08,
    });
    expect(JSON.parse(variables[ENV.modelPrice] ?? '{}')).toEqual(DEFAULT_MODEL_PRICES['claude-sonnet-5-5']);
    expect(JSON.parse(variables[ENV.agentLimits] ?? '{}')).toMatchObject({ maxDailyCostUsd: 25 });
  });

  it('fails the synth when the judge is on and its model has no price', () => {
    expect(() =>
      buildStack({
        config: { channelConversations: { useLlmJudge: true, judgeModelId: 'some-unlisted-model' } },
      }),
    ).toThrow(/some-unlisted-model/);
  });

  it('deploys no requirements interview, nor registers it, when it is off', () => {
    const off = Template.fromStack(
      buildStack({ config: { requirementsInterview: { enabled: false } } }).stack,
    );
    const registrations = WorkflowRegistrations.parse(JSON.parse(registrationsText(off)));
    expect(registrations.map((r) => r.workflow)).not.toContain('requirements_interview');
    expect(registrations.map((r) => r.workflow)).toContain('bug_investigation');
    expect(JSON.stringify(registrations)).not.toContain('/prd');
    expect(() => stateMachineOf(off, 'requirements_interview')).toThrow('no state machine marked');
    expect(stateMachineOf(off, 'bug_investigation')).toBeDefined();
  });

  it('deploys no replies queue and no ChannelResponder when channel conversations are off', () => {
    const off = Template.fromStack(
      buildStack({ config: { channelConversations: { enabled: false } } }).stack,
    );
    const [, router] = functionResource(off, 'Router');
    const variables = variablesOf(off, router);
    expect(variables).not.toHaveProperty(CHANNEL_ENV.settings);
    expect(variables).not.toHaveProperty(CHANNEL_ENV.repliesQueueUrl);
    const marked = Object.values(resourcesOfType(off, 'AWS::Lambda::Function')).map(
      (fn) => fn.Metadata?.['slack-agents:function'],
    );
    expect(marked).not.toContain('ChannelResponder');
    expect(
      Object.keys(resourcesOfType(off, 'AWS::SQS::Queue')).filter((id) => id.startsWith('Channel')),
    ).toEqual([]);
    // The Router still reads the Slack secret (user groups), never another one.
    const slackSecretId = Object.keys(resourcesOfType(off, 'AWS::SecretsManager::Secret')).find((id) =>
      id.startsWith('SlackCredentials'),
    );
    const secretReads = actionsOf('Router', off).filter(({ actions }) =>
      actions.includes('secretsmanager:GetSecretValue'),
    );
    expect(secretReads.map(({ resource }) => resource)).toEqual([`<${slackSecretId}>`]);
  });

  it("lets the bug investigation's AgentTurn use the table, read the model key and invoke the history tool, nothing more", () => {
    const [tableId] = onlyResource(template, 'AWS::DynamoDB::Table');
    const [historyToolId] = functionResource(template, 'ConversationHistoryTool');
    const [modelSecretId] = Object.entries(resourcesOfType(template, 'AWS::SecretsManager::Secret')).find(
      ([, secret]) =>
        (secret.Properties.GenerateSecretString as { GenerateStringKey: string }).GenerateStringKey ===
        'apiKey',
    ) ?? [''];
    const statements = actionsOf('BugInvestigationAgentTurn');
    expect(statements).toContainEqual({
      actions: ['lambda:InvokeFunction'],
      resource: `<${historyToolId}.Arn>`,
    });
    expect(statements).toContainEqual({
      actions: expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query']),
      resource: `<${tableId}.Arn>`,
    });
    expect(statements).toContainEqual({
      actions: expect.arrayContaining(['secretsmanager:GetSecretValue']),
      resource: `<${modelSecretId}>`,
    });
    const services = new Set(statements.flatMap(({ actions }) => actions.map((a) => a.split(':')[0])));
    expect([...services].sort()).toEqual(['dynamodb', 'lambda', 'logs', 'secretsmanager', 'xray']);
  });

  it('gives the history tool and SlaCheck read access to the table, and no write', () => {
    for (const id of ['ConversationHistoryTool', 'SlaCheck']) {
      const actions = actionsOf(id).flatMap((statement) => statement.actions);
      expect(actions, id).toContain('dynamodb:Query');
      expect(
        actions.filter((a) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(a)),
        id,
      ).toEqual([]);
      expect(actions, id).not.toContain('secretsmanager:GetSecretValue');
    }
  });

  it('lets no function but the agent turns with tools and the Router (notices through SlackPost) invoke another function', () => {
    const invoking = Object.keys(FUNCTIONS).filter((id) =>
      actionsOf(id).some(({ actions }) => actions.includes('lambda:InvokeFunction')),
    );
    expect(invoking.sort()).toEqual(['BugInvestigationAgentTurn', 'IncidentAgentTurn', 'Router']);
  });

  it('lets only the Router, RegisterWait, ApprovalWait and the Reconciler complete task tokens', () => {
    const completing = Object.keys(FUNCTIONS).filter((id) =>
      actionsOf(id).some(({ actions }) => actions.includes('states:SendTaskSuccess')),
    );
    expect(completing.sort()).toEqual(['ApprovalWait', 'Reconciler', 'RegisterWait', 'Router']);
  });
});

describe('credentials', () => {
  it('are four secrets (Slack, model, GitHub and PagerDuty webhooks) whose values are generated, never written in the template', () => {
    const secrets = Object.values(resourcesOfType(template, 'AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(4);
    for (const secret of secrets) {
      expect(secret.Properties).not.toHaveProperty('SecretString');
      expect(secret.Properties).toHaveProperty('GenerateSecretString.GenerateStringKey');
    }
  });

  it('hold the Slack fields the handlers read', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({
        GenerateStringKey: 'signingSecret',
        SecretStringTemplate: Match.stringLikeRegexp('"botToken"'),
      }),
    });
  });
});

describe('outputs', () => {
  it('give every URL and secret name of the deploy guide, the table, the queues, the alarms and each state machine', () => {
    const stateMachines = [...Object.keys(template.findResources('AWS::StepFunctions::StateMachine'))];
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(
      [
        'AlarmTopicArn',
        'ConversationsTableName',
        'DashboardUrl',
        'GitHubWebhookSecretName',
        'GitHubWebhookUrl',
        'InboxDeadLetterQueueUrl',
        'InboxQueueUrl',
        'ModelCredentialsSecretName',
        'PagerDutyWebhookSecretName',
        'PagerDutyWebhookUrl',
        'SlackCredentialsSecretName',
        'SlackRequestUrl',
        'BugInvestigationStateMachineArn',
        'IncidentInvestigationStateMachineArn',
        'KernelProbeStateMachineArn',
        'KernelProbeAgentStateMachineArn',
        'RequirementsInterviewStateMachineArn',
        'SlaTrackingStateMachineArn',
      ].sort(),
    );
    // One state machine output per state machine.
    expect(
      Object.keys(template.toJSON().Outputs).filter((id) => id.endsWith('StateMachineArn')),
    ).toHaveLength(stateMachines.length);
  });
});

describe('state machines of the production stack', () => {
  const production = templateOf();

  it('let the Router start the workflows, never the SlaTracking child', () => {
    const [bugId] = stateMachineOf(production, 'bug_investigation');
    const [interviewId] = stateMachineOf(production, 'requirements_interview');
    const [incidentId] = stateMachineOf(production, 'incident_investigation');
    const [slaId] = stateMachineOf(production, 'sla_tracking');
    const starts = actionsOf('Router', production).filter(({ actions }) =>
      actions.includes('states:StartExecution'),
    );
    expect(starts.map(({ resource }) => resource)).toEqual([
      `<${bugId}>`,
      `<${interviewId}>`,
      `<${incidentId}>`,
    ]);
    expect(starts.map(({ resource }) => resource)).not.toContain(`<${slaId}>`);
  });

  it('let the bug investigation start SlaTracking and itself (continue-as-new), and nothing else', () => {
    const [bugId, bug] = stateMachineOf(production, 'bug_investigation');
    const [slaId] = stateMachineOf(production, 'sla_tracking');
    const starts = roleStatements(production, bug.Properties.RoleArn).filter(({ actions }) =>
      actions.some((action) => action.startsWith('states:')),
    );
    expect(starts).toEqual(
      expect.arrayContaining([
        { actions: ['states:StartExecution'], resource: `<${slaId}>` },
        { actions: ['states:StartExecution'], resource: `<${bugId}>` },
      ]),
    );
    expect(
      starts.flatMap(({ actions }) => actions).every((action) => action === 'states:StartExecution'),
    ).toBe(true);
  });

  it("let SlaTracking invoke SlaCheck and the bug investigation's SlackPost only, and start nothing", () => {
    const [, sla] = stateMachineOf(production, 'sla_tracking');
    const statements = roleStatements(production, sla.Properties.RoleArn);
    const invoked = statements
      .filter(({ actions }) => actions.includes('lambda:InvokeFunction'))
      .map(({ resource }) => resource);
    // The versions this deploy published: an execution keeps calling the code it started with.
    expect([...new Set(invoked)].sort()).toEqual(
      [
        `<${publishedVersionOf(production, 'BugInvestigationSlackPost')}>`,
        `<${publishedVersionOf(production, 'SlaCheck')}>`,
      ].sort(),
    );
    expect(statements.flatMap(({ actions }) => actions)).not.toContain('states:StartExecution');
  });
});

/** The state machine resource carrying `slack-agents:workflow` = name. */
function stateMachineOf(from: Template, name: string): [string, Resource] {
  const found = Object.entries(resourcesOfType(from, 'AWS::StepFunctions::StateMachine')).find(
    ([, resource]) => resource.Metadata?.['slack-agents:workflow'] === name,
  );
  if (found === undefined) throw new Error(`no state machine marked ${name}`);
  return found;
}

/** The IAM statements of a function's role, with rendered resources. */
function actionsOf(id: string, from: Template = template): { actions: string[]; resource: string }[] {
  const [, fn] = functionResource(from, id);
  return roleStatements(from, fn.Properties.Role);
}

/** The IAM statements of the policies attached to a role (given as its `Fn::GetAtt` Arn). */
function roleStatements(from: Template, roleArn: unknown): { actions: string[]; resource: string }[] {
  const roleId = (roleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const policies = Object.values(resourcesOfType(from, 'AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId),
  );
  return policies.flatMap((policy) =>
    (
      policy.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }
    ).Statement.flatMap((statement) =>
      [statement.Resource].flat().map((resource) => ({
        actions: [statement.Action].flat(),
        resource: renderIntrinsics(resource),
      })),
    ),
  );
}
