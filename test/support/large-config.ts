/**
 * A large configuration, as a platform team's install grows: every workflow on, each with its
 * repository, 30 incident services with alarms, PagerDuty services and telemetry (log groups,
 * metrics, stacks, dependencies), runbooks and skills, and 50 people. Real-looking Slack ids:
 * it synthesizes outside the sandbox.
 */
const SERVICES = Array.from({ length: 30 }, (_, i) => `service-${String(i + 1).padStart(2, '0')}`);
const id = (prefix: string, i: number) => `${prefix}07${String(i).padStart(7, '0')}`;

export const LARGE_CONFIG = {
  channels: {
    bugReports: id('C', 1),
    bugSummaries: id('C', 2),
    developers: id('C', 3),
    incidents: id('C', 4),
    issuePipeline: id('C', 5),
  },
  people: {
    developer: { groups: [id('S', 1)], users: Array.from({ length: 20 }, (_, i) => id('U', 100 + i)) },
    on_call: { groups: [id('S', 2)], users: Array.from({ length: 15 }, (_, i) => id('U', 200 + i)) },
    incident_approver: {
      groups: [id('S', 3)],
      users: Array.from({ length: 15 }, (_, i) => id('U', 300 + i)),
    },
  },
  bugInvestigation: { repository: 'acme/webshop' },
  issuePipeline: { repository: 'acme/webshop', sensitivePaths: ['.github/**', 'infra/**'] },
  requirementsInterview: { mentionChannels: [id('C', 6), id('C', 7)] },
  channelConversations: { enabled: true, useLlmJudge: true },
  alarms: { names: [], namePrefixes: SERVICES.map((name) => `${name}-`) },
  incidentInvestigation: {
    services: SERVICES.map((name, i) => ({
      name,
      alarmNames: [`${name}-5xx-rate`, `${name}-p99-latency`],
      alarmPrefixes: [`${name}-canary-`],
      pagerDutyServices: [`P${String(i).padStart(6, '0')}`],
    })),
    runbooks: SERVICES.slice(0, 10).map((name) => ({
      name: `${name}-restart`,
      title: `Restart ${name}`,
      matches: [`${name} memory leak`, `${name} deadlock`],
      steps: [`Restart ${name}'s tasks one at a time`, 'Watch the error rate for ten minutes'],
      skills: [`restart-${name}`],
    })),
    skills: SERVICES.slice(0, 10).map((name) => ({
      name: `restart-${name}`,
      description: `Restarts ${name}'s ECS tasks one at a time`,
      target: { type: 'lambda', function: `restart-${name}` },
    })),
    telemetry: {
      services: SERVICES.map((name, i) => ({
        name,
        description: `The ${name} service of the shop`,
        logGroups: [`/ecs/${name}`, `/aws/lambda/${name}-worker`],
        metrics: {
          namespace: 'Acme/Services',
          dimensions: { Service: name, Environment: 'prod' },
          names: ['Errors', 'Latency', 'Requests'],
        },
        stacks: [`${name}-prod`],
        dependencies: SERVICES.filter((_, j) => j !== i && (j - i + 30) % 30 <= 3),
      })),
      sources: { datadog: { enabled: true }, pagerduty: { enabled: true } },
    },
  },
};
