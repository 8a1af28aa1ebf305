import type { SlackAgentsConfigInput } from '../../infra/config.ts';

/**
 * A configuration with every documented option turned on at once: every workflow with its
 * repository (code tools, checks builds, the fix path, the issue pipeline), Amazon Bedrock,
 * skills of each kind (a Lambda by name and by ARN, an SSM Automation document, the demo
 * skill), Datadog and PagerDuty, alarms, services with telemetry, and real-looking Slack ids
 * (the sandbox's placeholders are not valid outside it).
 */
export const ALL_OPTIONS_CONFIG = {
  botUserId: 'U0BOT00001',
  channels: {
    bugReports: 'C0BUGREPORT',
    bugSummaries: 'C0BUGSUMMAR',
    developers: 'C0DEVELOPER',
    incidents: 'C0INCIDENTS',
  },
  people: {
    developer: { groups: ['S0DEVELOPER'], users: [] },
    on_call: { groups: ['S0ONCALL001'], users: ['U0ONCALL001'] },
    incident_approver: { groups: ['S0ONCALL001'], users: [] },
  },
  model: { provider: 'bedrock', id: 'global.anthropic.claude-sonnet-5-5' },
  logRetentionDays: 30,
  monitoring: { alarmEmails: ['ops@example.com'] },
  deployment: {
    strategy: 'linear',
    percent: 25,
    intervalMinutes: 10,
    alarms: ['slack-agents-canary-errors'],
  },
  alarms: { names: ['checkout-p99'], namePrefixes: ['payment-'] },
  agentLimits: { maxConversationCostUsd: 50, maxDailyCostUsd: 500 },
  github: { baseUrl: 'https://api.github.com' },
  mcp: {
    servers: [
      {
        name: 'grafana',
        url: 'https://grafana.example.com/api/mcp',
        headersSecret: 'slack-agents/mcp/grafana',
        workflows: ['incident_investigation'],
        tools: { deny: ['delete_dashboard'] },
        approval: { update_dashboard: 'approve' },
      },
      {
        name: 'runbooks',
        url: 'https://runbooks.example.com/mcp',
        headersSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:runbooks-mcp-AbCdEf',
      },
    ],
    historyServer: {
      enabled: true,
      readers: [
        { principal: 'arn:aws:iam::123456789012:role/oncall', workflows: ['incident_investigation'] },
        { principal: '210987654321', workflows: ['bug_investigation'] },
      ],
    },
  },
  bugInvestigation: {
    repository: 'acme/webshop',
    build: { commands: { test: 'npm test' }, timeoutMinutes: 30 },
  },
  requirementsInterview: { mentionChannels: ['C0PRODUCTID'] },
  channelConversations: {
    enabled: true,
    useLlmJudge: true,
    judgeModelId: 'global.anthropic.claude-haiku-4-5',
  },
  issuePipeline: { repository: 'acme/webshop', sensitivePaths: ['infra/'] },
  incidentInvestigation: {
    services: [
      { name: 'checkout', alarmNames: ['checkout-p99'], pagerDutyServices: ['PCHECKOUT'] },
      { name: 'payment-api', alarmPrefixes: ['payment-'] },
    ],
    runbooks: [
      {
        name: 'scale-out',
        title: 'Scale out a saturated service',
        matches: ['saturation', 'cpu'],
        steps: ['Scale the service out'],
        skills: ['scale', 'restart', 'restart-by-arn', 'demo'],
      },
    ],
    skills: [
      {
        name: 'scale',
        description: 'Scales an ECS service out',
        target: {
          type: 'ssm_automation',
          document: 'Ops-ScaleService',
          documentVersion: '3',
          policyArns: ['arn:aws:iam::123456789012:policy/ops-scale-ecs'],
        },
      },
      {
        name: 'restart-ec2',
        description: 'Restarts an EC2 instance (an AWS-owned document)',
        target: {
          type: 'ssm_automation',
          document: 'AWS-RestartEC2Instance',
          policyArns: ['arn:aws:iam::aws:policy/service-role/AmazonSSMAutomationRole'],
        },
      },
      {
        name: 'restart',
        description: 'Restarts a service',
        target: { type: 'lambda', function: 'ops-restart' },
      },
      {
        name: 'restart-by-arn',
        description: 'Restarts a service, by its function ARN',
        target: { type: 'lambda', function: 'arn:aws:lambda:eu-west-1:123456789012:function:ops-restart' },
      },
      { name: 'demo', description: 'The labelled demo skill', target: { type: 'demo' } },
    ],
    telemetry: {
      services: [
        {
          name: 'checkout',
          logGroups: ['/ecs/checkout'],
          metrics: { namespace: 'Shop', dimensions: { Service: 'checkout' }, names: ['Latency'] },
          stacks: ['checkout-prod'],
          dependencies: ['payment-api'],
          datadog: { service: 'checkout', metrics: ['trace.http.request.duration'] },
        },
        { name: 'payment-api', logGroups: ['/ecs/payment-api'] },
      ],
      sources: { datadog: { enabled: true }, pagerduty: { enabled: true } },
    },
  },
} satisfies SlackAgentsConfigInput;
