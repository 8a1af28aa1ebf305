import { CfnResource, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { cloudFormationFindings } from '../../infra/preflight/cloudformation-findings.ts';
import { staticPreflight } from '../../infra/preflight/static-checks.ts';
import { scratchDirectoryCount } from '../../infra/scratch.ts';
import { buildStack, synthesizeTemplate } from '../../infra/synth.ts';
import { KERNEL_PROBE, KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { LARGE_CONFIG } from '../support/large-config.ts';

/**
 * The stack passes aws-cdk-lib's built-in CloudFormation validation (the schema and rule checks
 * `cdk synth` and `cdk deploy` run, whose findings they only print as warnings): the sandbox and
 * the other tests synthesize without it, and the preflight reports every finding as a problem.
 */

function findings(add: (stack: Stack) => void): string[] {
  const { app, stack } = buildStack({
    config: LARGE_CONFIG as never,
    sandbox: false,
    cloudFormationValidation: true,
  });
  add(stack);
  return cloudFormationFindings(app.synth().directory);
}

const brokenQueue = (stack: Stack) =>
  new CfnResource(stack, 'Broken', { type: 'AWS::SQS::Queue', properties: { VisibilityTimeout: 'soon' } });

describe("aws-cdk-lib's built-in CloudFormation validation", () => {
  // One synthesis of the stack with every workflow configured, plus a resource with a wrong
  // property: that resource's finding is the only one, so the stack itself has none.
  it('reports a resource with a wrong property, naming the rule and the construct, and nothing else in the stack', () => {
    expect(findings(brokenQueue)).toEqual([
      expect.stringMatching(
        /^CloudFormation F\d+ at SlackAgents\/Broken: VisibilityTimeout: 'soon' is not of type 'integer'/,
      ),
    ]);
  });

  it('is a problem the preflight reports, not a warning it drops', () => {
    const probe = {
      ...KERNEL_PROBE_MODULE,
      channels: { probe: 'C0PROBE0001' },
      workflows: [
        {
          ...KERNEL_PROBE,
          build: (...args: Parameters<typeof KERNEL_PROBE.build>) => {
            brokenQueue(Stack.of(args[0]));
            return KERNEL_PROBE.build(...args);
          },
        },
      ],
    };
    const report = staticPreflight({}, [probe]);
    expect(report.problems).toEqual([
      expect.stringMatching(/^CloudFormation F\d+ at SlackAgents\/Broken: VisibilityTimeout/),
    ]);
  });

  it('is skipped by default where the sandbox and the tests synthesize', () => {
    const { app } = buildStack();
    expect(app._builtinCloudFormationValidation).toBe(false);
  });

  it('leaves no cloud assembly behind once the template is read', () => {
    const before = scratchDirectoryCount();
    synthesizeTemplate({ modules: [KERNEL_PROBE_MODULE], config: { channels: { probe: 'C_PROBE' } } });
    expect(scratchDirectoryCount()).toBe(before);
  });
});
