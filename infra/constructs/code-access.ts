import { ArnFormat, CfnOutput, Stack, Validations } from 'aws-cdk-lib';
import { Project } from 'aws-cdk-lib/aws-codebuild';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { CODE_TOOLS_ENV } from '../../lambdas/tools/code/config.ts';
import type { FunctionSpec } from '../../statemachines/kernel-functions.ts';
import { executionRoleOf, nagResourceName } from '../nag-resource.ts';
import type { KernelFunction } from './kernel-function.ts';
import { ThirdPartySecret } from './third-party-secret.ts';

/**
 * What a function that works on code may be given: the GitHub credentials secret
 * (`access.githubSecret`, with GITHUB_SECRET_ARN and GITHUB_BASE_URL) and CodeBuild's logs
 * (`access.buildLogs`). Nothing else of AWS.
 */

/** The GitHub credentials secret: created once, when the first function asks for it. */
const githubSecrets = new WeakMap<Construct, ThirdPartySecret>();

function githubSecretOf(scope: Construct): ThirdPartySecret {
  const stack = Stack.of(scope);
  let secret = githubSecrets.get(stack);
  if (secret === undefined) {
    secret = new ThirdPartySecret(stack, 'GitHubCredentials', {
      description:
        'GitHub App credentials: { "appId": "...", "installationId": "...", "privateKey": "-----BEGIN..." } (or { "token": "..." } for a fine-grained token)',
      placeholders: { appId: 'REPLACE_WITH_APP_ID', installationId: 'REPLACE_WITH_INSTALLATION_ID' },
      generatedField: 'privateKey',
      issuedBy: "GitHub (the App's settings: App ID, a private key, and the installation's id)",
    });
    new CfnOutput(stack, 'GitHubCredentialsSecretArn', {
      value: secret.secretArn,
      description: 'Put the GitHub App credentials (or a token) in this secret',
    });
    githubSecrets.set(stack, secret);
  }
  return secret;
}

/** Grants `fn` the code access its spec declares; nothing when it declares none. */
export function grantCodeAccess(fn: KernelFunction, spec: FunctionSpec, githubBaseUrl: string): void {
  if (spec.access?.githubSecret === true) {
    const secret = githubSecretOf(fn);
    secret.grantRead(fn);
    fn.addEnvironment(CODE_TOOLS_ENV.githubSecretArn, secret.secretArn);
    fn.addEnvironment(CODE_TOOLS_ENV.githubBaseUrl, githubBaseUrl);
  }
  if (spec.access?.buildLogs === true) {
    const stack = Stack.of(fn);
    buildLogReaders.set(stack, [...(buildLogReaders.get(stack) ?? []), fn]);
  }
}

/** The functions that read build logs (`access.buildLogs`), per stack, until the projects exist. */
const buildLogReaders = new WeakMap<Stack, KernelFunction[]>();

/**
 * Lets each function with `access.buildLogs` read the build logs of the stack's own CodeBuild
 * projects (`logs:GetLogEvents` on `/aws/codebuild/<project>`) and their test reports
 * (`codebuild:BatchGetReports`, `DescribeTestCases`), and no other project's: called
 * once every project exists (the checks builds are created with their state machines, after
 * the functions).
 */
export function grantBuildLogReads(scope: Construct): void {
  const stack = Stack.of(scope);
  const readers = buildLogReaders.get(stack) ?? [];
  const projects = stack.node.findAll().filter((c): c is Project => c instanceof Project);
  if (readers.length === 0 || projects.length === 0) return;
  const logGroups = projects.map((project) =>
    stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: `/aws/codebuild/${project.projectName}`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  );
  for (const fn of readers) {
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['logs:GetLogEvents'],
        // The group, and its streams (`<group>:*`, the form GetLogEvents is authorized on).
        resources: logGroups.flatMap((group) => [group, `${group}:*`]),
      }),
    );
    // The test reports CodeBuild keeps of the checks builds (report groups `<project>-<key>`,
    // created by the builds' buildspecs): read-only, per test, never from the log.
    const reportGroups = projects.map((project) =>
      stack.formatArn({
        service: 'codebuild',
        resource: 'report-group',
        resourceName: `${project.projectName}-*`,
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['codebuild:BatchGetReports', 'codebuild:DescribeTestCases'],
        resources: reportGroups,
      }),
    );
    for (const group of reportGroups) {
      Validations.of(executionRoleOf(fn)).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagResourceName(fn, group)}]`,
        reason:
          "Read-only (BatchGetReports, DescribeTestCases) on the test report groups of one of the stack's own CodeBuild projects: the buildspec names the group and CodeBuild creates it as `<project>-<name>`.",
      });
    }
    for (const group of logGroups) {
      Validations.of(executionRoleOf(fn)).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagResourceName(fn, `${group}:*`)}]`,
        reason:
          "Read-only (logs:GetLogEvents) on the log streams of one of the stack's own CodeBuild projects: CodeBuild names a stream per build, so the streams cannot be listed ahead.",
      });
    }
  }
}
