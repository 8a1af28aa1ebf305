import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnResource } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { LARGE_CONFIG } from '../support/large-config.ts';

/**
 * The stack passes aws-cdk-lib's built-in CloudFormation validation (the schema and rule checks
 * `cdk synth` and `cdk deploy` run): the sandbox and the other tests synthesize without it, so
 * this file is where a resource the validator would flag shows up.
 */

interface Report {
  pluginReports: { violations?: { ruleName: string; description: string }[] }[];
}

function violations(add?: (stack: ReturnType<typeof buildStack>['stack']) => void): string[] {
  const { app, stack } = buildStack({
    config: LARGE_CONFIG as never,
    sandbox: false,
    cloudFormationValidation: true,
  });
  add?.(stack);
  const assembly = app.synth();
  const report = JSON.parse(
    readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'),
  ) as Report;
  return report.pluginReports.flatMap((plugin) =>
    (plugin.violations ?? []).map((v) => `${v.ruleName}: ${v.description}`),
  );
}

describe("aws-cdk-lib's built-in CloudFormation validation", () => {
  it('finds nothing in the stack with every workflow configured', () => {
    expect(violations()).toEqual([]);
  });

  it('would report a resource with a wrong property (the check can fail)', () => {
    const found = violations((stack) => {
      new CfnResource(stack, 'Broken', {
        type: 'AWS::SQS::Queue',
        properties: { VisibilityTimeout: 'soon' },
      });
    });
    expect(found.some((line) => line.includes('VisibilityTimeout'))).toBe(true);
  });

  it('is skipped by default where the sandbox and the tests synthesize', () => {
    const { app } = buildStack();
    expect(app._builtinCloudFormationValidation).toBe(false);
  });
});
