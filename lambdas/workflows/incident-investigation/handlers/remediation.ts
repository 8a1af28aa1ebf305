import { LambdaClient } from '@aws-sdk/client-lambda';
import { SSMClient } from '@aws-sdk/client-ssm';
import * as z from 'zod';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { ENV } from '../../../shared/env.ts';
import { createLogger } from '../../../shared/logger.ts';
import { createSkillRunner, DEMO_SKILL_FUNCTION_KEY } from '../adapters/skill-runner.ts';
import { INCIDENT_ENV } from '../config.ts';
import { runStep, type SkillRunner } from '../remediation.ts';
import { conversations, incidentStore, remediationConfig } from '../wiring.ts';

const logger = createLogger('incident-remediation');

export const RunStepInput = z.object({
  conversationId: z.string().min(1),
  index: z.number().int().nonnegative(),
});

let skills: SkillRunner | undefined;

function demoFunction(): string | undefined {
  try {
    return (JSON.parse(process.env[ENV.toolFunctions] ?? '{}') as Record<string, string>)[
      DEMO_SKILL_FUNCTION_KEY
    ];
  } catch {
    return undefined;
  }
}

/**
 * IncidentRemediation: runs one approved (or read-only) remediation step through its skill,
 * and its rollback when it fails (remediation.ts holds the rule: nothing that changes a
 * system runs without a recorded approval).
 */
export const handler = taskHandler({
  task: 'IncidentRemediation',
  schema: RunStepInput,
  logger,
  run: (input) => {
    skills ??= createSkillRunner({
      lambda: new LambdaClient({}),
      ssm: new SSMClient({}),
      demoFunction: demoFunction(),
      automationAssumeRole: process.env[INCIDENT_ENV.automationRole],
    });
    return runStep(input, {
      incidents: incidentStore(),
      conversations: conversations(),
      config: remediationConfig(),
      now: () => new Date(),
      skills,
    });
  },
  summary: (input, output) => ({ step: input.index, ok: output.ok, rolledBack: output.rolledBack }),
});
