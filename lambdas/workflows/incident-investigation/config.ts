import * as z from 'zod';
import { TelemetryConfig } from './telemetry/config.ts';

/**
 * The incident investigation's section of the stack configuration
 * (`slackAgents.incidentInvestigation`), composed into the stack's schema by its module
 * (statemachines/incident-investigation). The incidents channel is `slackAgents.channels.incidents`;
 * who may approve a remediation step is `slackAgents.approvals.remediation_step`.
 */

const Name = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'expected a lower-case name such as payment-api');

/** A service the investigation answers for, and the alerts that open an incident on it. */
export const IncidentService = z.strictObject({
  /** The service's name as people and the data tools know it, e.g. `checkout`. */
  name: Name,
  /** CloudWatch alarms (exact names) whose ALARM state opens an incident. @default [] */
  alarmNames: z.array(z.string().min(1)).default([]),
  /** CloudWatch alarm name prefixes that open an incident. @default [] */
  alarmPrefixes: z.array(z.string().min(1)).default([]),
  /** PagerDuty services (names or ids) whose `incident.triggered` opens an incident. @default [] */
  pagerDutyServices: z.array(z.string().min(1)).default([]),
});
export type IncidentService = z.infer<typeof IncidentService>;

/**
 * A skill: something a remediation step runs. `lambda` invokes a function (name or ARN) with
 * `{ action: 'apply' | 'rollback', skill, step, parameters }`; `ssm_automation` starts an SSM
 * Automation document with the step's parameters.
 */
export const SkillTarget = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('lambda'),
    /** A function name or ARN the stack lets the runner invoke. */
    function: z
      .string()
      .regex(
        /^(arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:)?[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]{1,128})?$/,
        'expected a Lambda function name or ARN, e.g. restart-checkout or arn:aws:lambda:eu-west-1:123456789012:function:restart-checkout',
      ),
  }),
  z.strictObject({
    type: z.literal('ssm_automation'),
    /** The Automation document's name (or ARN), e.g. `AWS-RestartEC2Instance`. */
    document: z
      .string()
      .regex(
        /^(arn:aws[a-z-]*:ssm:[a-z0-9-]+:\d{12}:document\/)?[A-Za-z0-9_.-]{3,128}$/,
        'expected an SSM Automation document name or ARN, e.g. AWS-RestartEC2Instance',
      ),
    /** The document's version. @default - the default version */
    documentVersion: z.string().min(1).optional(),
    /**
     * IAM managed policies (ARNs) the Automation role gets for this document's steps: the
     * stack creates one role that SSM assumes to run the skills' documents
     * (`AutomationAssumeRole`), with the policies of every SSM skill. @default []
     */
    policyArns: z
      .array(z.string().regex(/^arn:aws[a-z-]*:iam::(aws|\d{12}):policy\/.+$/, 'expected an IAM policy ARN'))
      .default([]),
  }),
  z.strictObject({
    /**
     * The module's own labelled demo skill (handlers/demo-skill.ts): it changes nothing
     * anywhere and fails when told to, so the sandbox can show approval, failure and rollback.
     * Deployed only when a skill names it.
     */
    type: z.literal('demo'),
  }),
]);
export type SkillTarget = z.infer<typeof SkillTarget>;

export const Skill = z.strictObject({
  name: Name,
  /** What it does, as the remediation agent reads it. */
  description: z.string().min(1).max(500),
  target: SkillTarget,
  /** Whether it changes anything: a mutating skill never runs without an approval. @default true */
  mutating: z.boolean().default(true),
  /** The skill that undoes it, run with the same parameters when it fails. @default - none */
  rollbackSkill: Name.optional(),
});
export type Skill = z.infer<typeof Skill>;

/** A runbook: when it applies, and the steps and skills it suggests. */
export const Runbook = z.strictObject({
  name: Name,
  title: z.string().min(1).max(200),
  /** Words or phrases of a root cause that make this runbook apply (case-insensitive). */
  matches: z.array(z.string().min(1)).min(1),
  /** Its steps, as a responder would read them. */
  steps: z.array(z.string().min(1).max(500)).min(1),
  /** Skills its steps may run (names of `skills`). @default [] */
  skills: z.array(Name).default([]),
});
export type Runbook = z.infer<typeof Runbook>;

export const IncidentInvestigationSettings = z
  .strictObject({
    /**
     * Whether the incident investigation is deployed (`/investigate`, the alert triggers, its
     * functions); on, it needs `channels.incidents` and people in `approvals.remediation_step`'s roles.
     * @default true
     */
    enabled: z.boolean().default(true),
    /** Services it answers for: their alarms and PagerDuty services open incidents. @default [] */
    services: z.array(IncidentService).default([]),
    /** What ends the rounds of investigation (a Conclude follows whichever ends first). */
    budget: z
      .strictObject({
        /** Rounds of parallel investigation at most. @default 4 */
        maxRounds: z.number().int().min(1).max(20).default(4),
        /** Minutes from the start after which no new round starts. @default 60 */
        maxMinutes: z.number().int().min(1).max(1440).default(60),
        /** Model tokens (input + output, the conversation's ledger) after which no new round starts. @default 600000 */
        maxTokens: z.number().int().positive().default(600_000),
        /**
         * Dollars the model may cost (the conversation ledger's `costMicroUsd`, priced by
         * lambdas/agents/pricing.ts) after which no new round starts; checked with the tokens.
         * @default - no money budget: the tokens alone
         */
        maxCostUsd: z.number().positive().max(100_000).optional(),
      })
      .prefault({}),
    /** Hypotheses investigated at the same time (the Map's MaxConcurrency). @default 3 */
    mapConcurrency: z.number().int().min(1).max(10).default(3),
    /** Open hypotheses investigated per round at most (highest priority first). @default 5 */
    maxHypothesesPerRound: z.number().int().min(1).max(10).default(5),
    /** Depth of sub-hypotheses at most (H1 is depth 1, H1.1 depth 2). @default 3 */
    maxDepth: z.number().int().min(1).max(5).default(3),
    /** Seconds an approval of a remediation step stays open before the plan stops. @default 3600 */
    approvalWaitSeconds: z.number().int().min(10).max(86_400).default(3600),
    runbooks: z.array(Runbook).default([]),
    skills: z.array(Skill).default([]),
    /**
     * The telemetry tools' configuration (telemetry/config.ts): the services (log groups,
     * metrics, CloudFormation stacks, dependencies = the service map), the query bounds (widest
     * window, events per query, queries per hypothesis per round) and the data sources
     * (CloudWatch on; Datadog and PagerDuty off until enabled).
     * @default { services: [] } with every bound at its default
     */
    telemetry: TelemetryConfig.prefault({}),
  })
  .superRefine((settings, context) => {
    const skills = new Set(settings.skills.map((s) => s.name));
    settings.skills.forEach((skill, index) => {
      if (skill.rollbackSkill !== undefined && !skills.has(skill.rollbackSkill))
        context.addIssue({
          code: 'custom',
          path: ['skills', index, 'rollbackSkill'],
          message: `no skill named "${skill.rollbackSkill}"`,
        });
    });
    settings.runbooks.forEach((runbook, index) => {
      for (const name of runbook.skills) {
        if (!skills.has(name))
          context.addIssue({
            code: 'custom',
            path: ['runbooks', index, 'skills'],
            message: `no skill named "${name}"`,
          });
      }
    });
    if (skills.size !== settings.skills.length)
      context.addIssue({ code: 'custom', path: ['skills'], message: 'skill names must be unique' });
  });
export type IncidentInvestigationSettings = z.infer<typeof IncidentInvestigationSettings>;
export type IncidentInvestigationSettingsInput = z.input<typeof IncidentInvestigationSettings>;

/** Environment variables of the module's functions (they read their settings from them). */
export const INCIDENT_ENV = {
  /** JSON `{ runbooks, skills }` of the settings: the plan matcher and the skill runner. */
  remediation: 'INCIDENT_REMEDIATION',
  /** JSON of the budget and the Map's bounds. */
  investigation: 'INCIDENT_INVESTIGATION',
  /** The role SSM assumes to run the skills' Automation documents (`AutomationAssumeRole`), with SSM skills. */
  automationRole: 'INCIDENT_AUTOMATION_ROLE_ARN',
} as const;

/** What the functions read of the settings (the stack writes it as JSON). */
export const RemediationConfig = z.object({ runbooks: z.array(Runbook), skills: z.array(Skill) });
export type RemediationConfig = z.infer<typeof RemediationConfig>;

export const InvestigationConfig = z.object({
  budget: z.object({
    maxRounds: z.number(),
    maxMinutes: z.number(),
    maxTokens: z.number(),
    maxCostUsd: z.number().optional(),
  }),
  maxHypothesesPerRound: z.number(),
  maxDepth: z.number(),
  services: z.array(z.string()),
});
export type InvestigationConfig = z.infer<typeof InvestigationConfig>;

/** The environment the module's functions get under these settings. */
export function incidentEnvironment(settings: IncidentInvestigationSettings): Record<string, string> {
  const investigation: InvestigationConfig = {
    budget: settings.budget,
    maxHypothesesPerRound: settings.maxHypothesesPerRound,
    maxDepth: settings.maxDepth,
    services: settings.services.map((s) => s.name),
  };
  const remediation: RemediationConfig = { runbooks: settings.runbooks, skills: settings.skills };
  return {
    [INCIDENT_ENV.investigation]: JSON.stringify(investigation),
    [INCIDENT_ENV.remediation]: JSON.stringify(remediation),
  };
}
