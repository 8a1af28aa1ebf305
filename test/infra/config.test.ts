import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { InvalidConfigError, parseConfig } from '../../infra/config.ts';
import { jsonErrorPlace } from '../../infra/json-error-place.ts';
import { buildStack } from '../../infra/synth.ts';

describe('stack configuration', () => {
  it('applies the documented defaults when nothing is configured', () => {
    expect(parseConfig({ sandbox: true })).toEqual({
      sandbox: true,
      stackName: 'SlackAgents',
      channels: {
        bugReports: 'C_BUG_REPORTS',
        bugSummaries: 'C_BUG_SUMMARIES',
        developers: 'C_DEVELOPERS',
        incidents: 'C_INCIDENTS',
        issuePipeline: 'C_DEVELOPERS',
      },
      botUserId: 'U_BOT',
      reporterWaitSeconds: 7200,
      developerWaitSeconds: 172_800,
      model: { provider: 'anthropic', id: 'claude-sonnet-5-5' },
      modelPrices: {},
      retentionDays: 90,
      liveProgress: true,
      redaction: { pii: ['card'], allow: [] },
      bedrock: {},
      mcp: {
        servers: [],
        maxCallsPerConversation: 50,
        approvalSeconds: 300,
        historyServer: { enabled: false, readers: [] },
      },
      logRetentionDays: 90,
      ingressReservedConcurrency: 50,
      inboxMaxReceiveCount: 5,
      monitoring: { alarmEmails: [], modelLatencyP90Ms: 60_000 },
      deployment: { strategy: 'all_at_once', alarms: [] },
      alarms: { names: [], namePrefixes: [] },
      github: { baseUrl: 'https://api.github.com' },
      people: {
        developer: { groups: ['S_DEVELOPERS'], users: [] },
        on_call: { groups: ['S_ONCALL'], users: [] },
        incident_approver: { groups: ['S_ONCALL'], users: [] },
      },
      approvals: {
        mcp_tool_call: ['incident_approver'],
        acknowledge_escalation: ['on_call'],
        request_fix: ['developer'],
        remediation_step: ['incident_approver'],
        approve_sensitive_change: ['developer'],
        approve_protected_fix: ['developer'],
      },
      untrustedText: 'label',
      protectedPaths: { add: [], remove: [] },
      bugInvestigation: {
        enabled: true,
        sla: { acknowledgeMinutes: { critical: 15, high: 60, medium: 240, low: 1440 }, maxReminders: 3 },
        continueAsNewAfterTurns: 40,
        build: { commands: {}, timeoutMinutes: 20 },
        protectedChanges: 'approve',
        maxFixAttempts: 3,
      },
      requirementsInterview: {
        enabled: true,
        confidenceThreshold: 95,
        maxClarificationTurns: 5,
        answerWaitSeconds: 86_400,
        mentionKeywords: ['prd', 'idea', 'product idea', 'feature idea', 'requirements'],
        mentionChannels: [],
      },
      incidentInvestigation: {
        enabled: true,
        services: [],
        budget: { maxRounds: 4, maxMinutes: 60, maxTokens: 600_000 },
        mapConcurrency: 3,
        maxHypothesesPerRound: 5,
        maxDepth: 3,
        approvalWaitSeconds: 3600,
        runbooks: [],
        skills: [],
        telemetry: {
          services: [],
          maxWindowMinutes: 360,
          defaultWindowMinutes: 60,
          maxEvents: 2000,
          maxExamples: 5,
          outputTokenBudget: 1500,
          queriesPerScope: 5,
          insightsTimeoutSeconds: 20,
          logTemplateReview: { enabled: false, maxTemplates: 8, maxEvidence: 3, maxOutputTokens: 1024 },
          sources: {
            cloudwatch: { enabled: true },
            datadog: { enabled: false, baseUrl: 'https://api.datadoghq.com' },
            pagerduty: { enabled: false, baseUrl: 'https://api.pagerduty.com' },
          },
        },
      },
      channelConversations: {
        enabled: true,
        timeoutSeconds: 120,
        followupWindowSeconds: 60,
        useLlmJudge: false,
        judgeModelId: 'claude-haiku-4-5',
        recentHistoryMessages: 20,
      },
      issuePipeline: {
        label: 'agent',
        maxAttempts: 3,
        maxTokens: 1_500_000,
        maxCostUsd: 20,
        wallClockMinutes: 240,
        humanWaitSeconds: 86_400,
        sensitivePaths: [],
        protectedChanges: 'approve',
        pullRequest: 'draft',
        build: { commands: {}, timeoutMinutes: 20 },
      },
      agentLimits: {
        maxConsecutiveContinues: 3,
        maxConversationTokens: 2_000_000,
        maxConversationSeconds: 604_800,
        maxToolRounds: 8,
        modelCallTimeoutSeconds: 120,
        maxRetryAfterSeconds: 30,
        modelRetry: { intervalSeconds: 60, maxAttempts: 3, backoffRate: 2 },
        escalationSeverity: 'medium',
      },
      reconciler: { everyMinutes: 5, olderThanSeconds: 300, maxRepairs: 3 },
    });
  });

  it('fails for a model with no price, naming modelPrices, and takes a configured price', () => {
    expect(() => parseConfig({ model: { id: 'claude-unlisted-1' } })).toThrow(
      /slackAgents\.modelPrices: no price is known for model "claude-unlisted-1"/,
    );
    const price = {
      inputPerMillion: 1,
      outputPerMillion: 2,
      cacheWritePerMillion: 1.25,
      cacheReadPerMillion: 0.1,
    };
    const config = parseConfig({
      sandbox: true,
      model: { id: 'claude-unlisted-1' },
      modelPrices: { 'claude-unlisted-1': price },
    });
    expect(config.modelPrices).toEqual({ 'claude-unlisted-1': price });
  });

  it('names a wrong price field and accepts money limits', () => {
    expect(() => parseConfig({ modelPrices: { 'claude-sonnet-5-5': { inputPerMillion: -1 } } })).toThrow(
      /slackAgents\.modelPrices\.claude-sonnet-5-5\.inputPerMillion/,
    );
    expect(
      parseConfig({ sandbox: true, agentLimits: { maxConversationCostUsd: 2.5, maxDailyCostUsd: 100 } })
        .agentLimits,
    ).toMatchObject({ maxConversationCostUsd: 2.5, maxDailyCostUsd: 100 });
  });

  it('names a wrong agent limit by its field', () => {
    expect(() => parseConfig({ agentLimits: { maxConsecutiveContinues: 0 } })).toThrow(
      /slackAgents\.agentLimits\.maxConsecutiveContinues/,
    );
  });

  it('refuses a bug repository that is not owner/name, and more than three fix attempts', () => {
    expect(() => parseConfig({ bugInvestigation: { repository: 'webshop' } })).toThrow(/owner\/name/);
    expect(() => parseConfig({ bugInvestigation: { maxFixAttempts: 4 } })).toThrow(/maxFixAttempts/);
    expect(() => parseConfig({ github: { baseUrl: 'ftp://example.com' } })).toThrow(/baseUrl/);
  });

  it('keeps the default SLA deadlines a partial SLA table leaves out', () => {
    expect(
      parseConfig({ sandbox: true, bugInvestigation: { sla: { acknowledgeMinutes: { critical: 5 } } } })
        .bugInvestigation,
    ).toMatchObject({
      sla: {
        acknowledgeMinutes: { critical: 5, high: 60, medium: 240, low: 1440 },
        maxReminders: 3,
      },
    });
  });

  it('rejects an on-call group that is not a Slack user group id (it is pasted into a mention)', () => {
    expect(() => parseConfig({ people: { on_call: { groups: ['here> <!channel'] } } })).toThrow(
      /slackAgents\.people\.on_call\.groups\.0/,
    );
  });

  it('refuses a continue-as-new threshold below two turns', () => {
    expect(() => parseConfig({ bugInvestigation: { continueAsNewAfterTurns: 1 } })).toThrow(
      /slackAgents\.bugInvestigation\.continueAsNewAfterTurns/,
    );
  });

  it('keeps the defaults of the fields a partial configuration leaves out', () => {
    const config = parseConfig({
      sandbox: true,
      channels: { bugReports: 'C0123ABCD' },
      model: { provider: 'bedrock' },
    });

    expect(config.channels).toEqual({
      bugReports: 'C0123ABCD',
      bugSummaries: 'C_BUG_SUMMARIES',
      developers: 'C_DEVELOPERS',
      incidents: 'C_INCIDENTS',
      issuePipeline: 'C_DEVELOPERS',
    });
    expect(config.model).toEqual({ provider: 'bedrock', id: 'global.anthropic.claude-sonnet-5-5' });
  });

  it('accepts further named channels in the sandbox, which creates them in its fake workspace', () => {
    expect(parseConfig({ sandbox: true, channels: { general: 'C_GENERAL' } }).channels.general).toBe(
      'C_GENERAL',
    );
  });

  it('reads JSON text, as `cdk -c slackAgents=...` passes it', () => {
    expect(parseConfig('{"sandbox": true, "reporterWaitSeconds": 60}').reporterWaitSeconds).toBe(60);
  });

  it('says why a pretty-printed file passed with `cdk -c` arrives as "{", and how to pass it', () => {
    // What the CDK CLI hands the app for -c slackAgents="$(cat my-config.json)" (checked with cdk 2).
    expect(() => parseConfig('{')).toThrow(/only "\{" arrived: `cdk -c` keeps the first line of a value/);
    expect(() => parseConfig('{"sandbox": true')).toThrow(
      /slackAgents: expected a JSON object \(not valid JSON at line 1, column 17: .+\)$/,
    );
  });

  it('says where malformed JSON went wrong, by line and column', () => {
    const text = '{\n  "sandbox": true,\n  reporterWaitSeconds: 60\n}';
    expect(() => parseConfig(text)).toThrow(
      /^invalid slackAgents configuration:\n {2}slackAgents: expected a JSON object \(not valid JSON at line 3, column 3: /,
    );
    expect(jsonErrorPlace('{"a": 1,}', new SyntaxError('Unexpected token } in JSON at position 8'))).toBe(
      ' (not valid JSON at line 1, column 9: Unexpected token })',
    );
  });

  it('names the field of an invalid value', () => {
    expect(() => parseConfig({ reporterWaitSeconds: -5 })).toThrow(/slackAgents\.reporterWaitSeconds/);
  });

  it('names a nested field with its path', () => {
    expect(() => parseConfig({ channels: { developers: 'not a channel' } })).toThrow(
      /slackAgents\.channels\.developers: expected a Slack channel id/,
    );
  });

  it('names an unknown field, so a typo does not pass silently', () => {
    expect(() => parseConfig({ reporterWaitSecs: 60 })).toThrow(
      /slackAgents\.reporterWaitSecs: unknown key; did you mean reporterWaitSeconds\?/,
    );
  });

  it('rejects a log retention CloudWatch Logs does not offer', () => {
    expect(() => parseConfig({ logRetentionDays: 45 })).toThrow(InvalidConfigError);
  });

  it('rejects an unknown model provider', () => {
    expect(() => parseConfig({ model: { provider: 'openai' } })).toThrow(/slackAgents\.model\.provider/);
  });

  it('fails the stack when the context holds an invalid configuration', () => {
    expect(() => buildStack({ config: { inboxMaxReceiveCount: 0 } })).toThrow(
      /slackAgents\.inboxMaxReceiveCount/,
    );
  });

  describe('a key moved into a workflow section', () => {
    const telemetry = { services: [{ name: 'checkout', logGroups: ['/ecs/checkout'] }] };

    it('reads telemetry from its old top-level place into incidentInvestigation.telemetry, with a deprecation warning', () => {
      const warnings: string[] = [];
      const config = parseConfig({ sandbox: true, telemetry }, undefined, {
        onWarning: (message) => warnings.push(message),
      });

      expect(config).not.toHaveProperty('telemetry');
      const incident = config.incidentInvestigation as { telemetry: { services: { logGroups: string[] }[] } };
      expect(incident.telemetry.services[0]?.logGroups).toEqual(['/ecs/checkout']);
      expect(warnings).toEqual([
        'slackAgents.telemetry: deprecated: this key moved to slackAgents.incidentInvestigation.telemetry; it was read from its old place, move it there',
      ]);
    });

    it('reads the new place without a warning', () => {
      const warnings: string[] = [];
      parseConfig({ sandbox: true, incidentInvestigation: { telemetry } }, undefined, {
        onWarning: (message) => warnings.push(message),
      });

      expect(warnings).toEqual([]);
    });

    it('refuses telemetry set in both places, naming the new one', () => {
      expect(() =>
        parseConfig({ sandbox: true, telemetry, incidentInvestigation: { telemetry } }, undefined, {
          onWarning: () => {},
        }),
      ).toThrow(
        /slackAgents\.telemetry: moved to slackAgents\.incidentInvestigation\.telemetry, which is set too/,
      );
    });

    it('shows the deprecation as a synth warning of the stack', () => {
      const { stack } = buildStack({ config: { telemetry } });

      Annotations.fromStack(stack).hasWarning(
        '*',
        Match.stringLikeRegexp(
          'slackAgents.telemetry: deprecated: this key moved to slackAgents.incidentInvestigation.telemetry',
        ),
      );
    });
  });
});

describe('redaction and the Bedrock guardrail', () => {
  it('refuses a guardrail without the Bedrock provider, naming the key', () => {
    expect(() =>
      parseConfig({ sandbox: true, bedrock: { guardrail: { id: 'abc123', version: '1' } } }),
    ).toThrow(/slackAgents\.bedrock\.guardrail: applies only with model\.provider bedrock/);
  });

  it('refuses an unknown personal data class', () => {
    expect(() => parseConfig({ sandbox: true, redaction: { pii: ['passport'] } })).toThrow(
      /slackAgents\.redaction\.pii\.0/,
    );
  });
});
