import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { remainingSteps, secretsOf } from '../../infra/preflight/deploy-steps.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';

/**
 * The preflight reads what a deploy needs from the modules (`preflight`): the probe fixture's
 * repository brings the GitHub secret, CodeBuild's source credentials and the GitHub webhook,
 * and its own step is listed; the kernel's preflight names no workflow.
 */

const MODULES = [KERNEL_PROBE_MODULE];
const config = (kernelProbe: Record<string, unknown>) =>
  parseConfig({ sandbox: true, channels: { probe: 'C_PROBE' }, kernelProbe }, MODULES);

describe("a module's preflight", () => {
  it('lists the steps its repository needs and its own step, with the command its settings name', () => {
    const withRepository = config({ repository: 'acme/probe', command: '/ask-probe' });
    const steps = remainingSteps(withRepository, 'Probe', { kind: 'cdk.json' }, MODULES).join('\n');
    expect(steps).toContain('aws codebuild import-source-credentials');
    expect(steps).toContain('GitHub webhook: payload URL "$(out GitHubWebhookUrl)"');
    expect(steps).toContain('Probe: run /ask-probe <question>');
    expect(secretsOf(withRepository, MODULES).map((s) => s.output)).toContain('GitHubCredentialsSecretArn');
  });

  it('needs nothing of GitHub without a repository, and still lists its own step', () => {
    const without = config({});
    const steps = remainingSteps(without, 'Probe', { kind: 'cdk.json' }, MODULES).join('\n');
    expect(steps).not.toContain('GitHub webhook');
    expect(steps).not.toContain('GitHubCredentialsSecretArn');
    expect(steps).not.toContain('codebuild');
    expect(steps).toContain('Probe: run /probe <question>');
    expect(secretsOf(without, MODULES).map((s) => s.output)).toEqual([
      'SlackCredentialsSecretName',
      'ModelCredentialsSecretName',
    ]);
  });
});
