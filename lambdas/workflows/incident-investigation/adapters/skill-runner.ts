import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import {
  GetAutomationExecutionCommand,
  type SSMClient,
  StartAutomationExecutionCommand,
} from '@aws-sdk/client-ssm';
import * as z from 'zod';
import type { Skill } from '../config.ts';
import { SkillFailedError } from '../errors.ts';
import type { SkillRunner } from '../remediation.ts';

/** The tool name under which the stack names the module's demo skill function (TOOL_FUNCTIONS). */
export const DEMO_SKILL_FUNCTION_KEY = 'incident_demo_skill';

/** What a skill Lambda gets. */
export const SkillInvocation = z.object({
  action: z.enum(['apply', 'rollback']),
  skill: z.string().min(1),
  conversationId: z.string().min(1),
  step: z.number().int().nonnegative(),
  parameters: z.record(z.string(), z.string()),
});
export type SkillInvocation = z.infer<typeof SkillInvocation>;

/** What a skill Lambda answers: `{ ok, detail }`; a function error counts as `ok: false`. */
export const SkillAnswer = z.object({ ok: z.boolean(), detail: z.string().max(2_000) });

const SSM_DONE = new Set([
  'Success',
  'Failed',
  'TimedOut',
  'Cancelled',
  'CompletedWithSuccess',
  'CompletedWithFailure',
  'Rejected',
]);

export interface SkillRunnerOptions {
  lambda: LambdaClient;
  ssm: SSMClient;
  /** The demo skill's function name (from TOOL_FUNCTIONS), when deployed. */
  demoFunction: string | undefined;
  /**
   * The role SSM assumes to run an Automation document (`AutomationAssumeRole`): the stack
   * creates it with the first SSM skill. Without it an SSM skill is not run.
   */
  automationAssumeRole: string | undefined;
  /** How long to wait for an Automation execution to finish before reporting it unfinished. @default 240000 */
  automationWaitMs?: number;
  /** Between two looks at an Automation execution. @default 5000 */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs skills through their targets with the real SDK clients: a Lambda (RequestResponse,
 * `SkillInvocation` in, `{ ok, detail }` out), an SSM Automation document
 * (`StartAutomationExecution`, then `GetAutomationExecution` until it ends), or the module's
 * demo skill function. A target that answers is a result (`ok` true or false); an SDK error
 * that is not the skill's own is thrown, so the task's retry handles it.
 */
export function createSkillRunner(options: SkillRunnerOptions): SkillRunner {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const invoke = async (functionName: string, payload: SkillInvocation) => {
    const out = await options.lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    );
    const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
    if (out.FunctionError !== undefined) {
      const message = /"errorMessage"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? text;
      return { ok: false, detail: `the function failed: ${message}`.slice(0, 2_000) };
    }
    const parsed = SkillAnswer.safeParse(safeJson(text));
    return parsed.success ? parsed.data : { ok: false, detail: `unexpected answer: ${text.slice(0, 500)}` };
  };
  const automation = async (
    skill: Skill,
    document: string,
    version: string | undefined,
    parameters: Record<string, string>,
  ) => {
    const role = options.automationAssumeRole;
    if (role === undefined)
      throw new SkillFailedError(skill.name, 'no Automation role is configured to run it');
    const started = await options.ssm.send(
      new StartAutomationExecutionCommand({
        DocumentName: document,
        ...(version ? { DocumentVersion: version } : {}),
        // The document's steps act as this role (its own `assumeRole: '{{ AutomationAssumeRole }}'`),
        // set last so a step's parameters cannot name another.
        Parameters: {
          ...Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, [v]])),
          AutomationAssumeRole: [role],
        },
      }),
    );
    const id = started.AutomationExecutionId;
    if (!id) throw new SkillFailedError(skill.name, 'SSM started no execution');
    const deadline = Date.now() + (options.automationWaitMs ?? 240_000);
    for (;;) {
      const { AutomationExecution: execution } = await options.ssm.send(
        new GetAutomationExecutionCommand({ AutomationExecutionId: id }),
      );
      const status = execution?.AutomationExecutionStatus ?? 'Pending';
      if (SSM_DONE.has(status)) {
        const ok = status === 'Success' || status === 'CompletedWithSuccess';
        return {
          ok,
          detail: `Automation ${id}: ${status}${execution?.FailureMessage ? ` (${execution.FailureMessage})` : ''}`,
        };
      }
      if (Date.now() >= deadline)
        return {
          ok: false,
          detail: `Automation ${id} still ${status} after the wait: check it in Systems Manager`,
        };
      await sleep(options.pollMs ?? 5_000);
    }
  };
  return {
    async run(skill, action, request) {
      const payload: SkillInvocation = { action, skill: skill.name, ...request };
      switch (skill.target.type) {
        case 'lambda':
          return invoke(skill.target.function, payload);
        case 'demo':
          if (options.demoFunction === undefined)
            throw new SkillFailedError(skill.name, 'the demo skill function is not deployed');
          return invoke(options.demoFunction, payload);
        case 'ssm_automation':
          return automation(skill, skill.target.document, skill.target.documentVersion, {
            ...request.parameters,
            ...(action === 'rollback' ? { Rollback: 'true' } : {}),
          });
      }
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
