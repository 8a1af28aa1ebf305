import { describe, expect, it } from 'vitest';
import { InvalidConfigError, parseConfig } from '../../infra/config.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { CODE_TOOLS_ENV } from '../../lambdas/tools/code/config.ts';
import { functionResource, renderIntrinsics, resourcesOfType, templateOf, variablesOf } from './template.ts';

/**
 * The issue pipeline's follow-ups as deployed: the Router's way to the IssueRetrigger function
 * (a queue it may send to, never a GitHub client), and the platform's own GitHub login handed
 * to the Router when it acts with a token.
 */
const variablesOfFunction = (template: ReturnType<typeof templateOf>, id: string) =>
  variablesOf(template, functionResource(template, id)[1]);

describe('the issue pipeline follow-ups in the stack', () => {
  const template = templateOf({
    config: { issuePipeline: { repository: 'demo/webshop' }, github: { login: 'acme-agents' } },
  });

  it("hands the Router the retrigger queue, read by IssueRetrigger (which holds the GitHub secret, the Router doesn't)", () => {
    const router = variablesOfFunction(template, 'Router');
    const retrigger = variablesOfFunction(template, 'IssueRetrigger');
    expect(renderIntrinsics(router[ENV.retriggerQueueUrl])).toMatch(/IssueRetriggers/);
    expect(retrigger[ENV.retriggerDeadLetterQueueUrl]).toBeDefined();
    expect(retrigger[CODE_TOOLS_ENV.githubSecretArn]).toBeDefined();
    expect(router[CODE_TOOLS_ENV.githubSecretArn]).toBeUndefined();
    const [retriggerId] = functionResource(template, 'IssueRetrigger');
    const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
    expect(mappings.some((m) => renderIntrinsics(m.Properties.FunctionName).includes(retriggerId))).toBe(
      true,
    );
  });

  it("sets the platform's own GitHub login on the Router only when configured, and refuses one that is no login", () => {
    expect(variablesOfFunction(template, 'Router')[ENV.githubLogin]).toBe('acme-agents');
    expect(variablesOfFunction(templateOf({ config: {} }), 'Router')[ENV.githubLogin]).toBeUndefined();
    expect(() => parseConfig({ github: { login: 'not a login' } })).toThrow(InvalidConfigError);
  });
});
