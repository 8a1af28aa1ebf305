import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { Octokit } from '@octokit/rest';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStack } from '../../infra/synth.ts';
import { bugWorkBranch } from '../../lambdas/workflows/bug-investigation/fix/work-branch.ts';
import { functionResource } from '../infra/template.ts';
import { type BugHarness, startBugHarness } from '../sandbox/bug-harness.ts';

/**
 * The attack as it was found: a direct Lambda Invoke of the sandbox's code tools function (the
 * one the bug workflow's fixer uses), for one conversation, naming another conversation's work
 * branch in its context. The function refuses, and the other branch keeps its head.
 */

const CONFIG = { bugInvestigation: { repository: 'demo/webshop' } };
let h: BugHarness;
let lambda: LambdaClient;
let github: Octokit;
let functionName: string;

beforeAll(async () => {
  // The sandbox names functions by their logical id, as the template does.
  [functionName] = functionResource(Template.fromStack(buildStack({ config: CONFIG }).stack), 'BugCodeTools');
  h = await startBugHarness(CONFIG);
  lambda = new LambdaClient({
    endpoint: h.sandbox.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });
  github = new Octokit({
    baseUrl: h.sandbox.github.apiUrl,
    auth: h.sandbox.github.createUserToken('demo-maintainer'),
  });
});
afterAll(async () => {
  lambda?.destroy();
  await h?.stop();
});

async function invoke(conversationId: string, workBranch: string, tool: string, args: unknown) {
  const response = await lambda.send(
    new InvokeCommand({
      FunctionName: functionName,
      Payload: new TextEncoder().encode(
        JSON.stringify({ tool, args, conversationId, context: { workBranch } }),
      ),
    }),
  );
  expect(response.FunctionError).toBeUndefined();
  return JSON.parse(new TextDecoder().decode(response.Payload)) as {
    ok: boolean;
    output?: string;
    error?: string;
  };
}

const headOf = async (branch: string) => {
  try {
    return (await github.rest.git.getRef({ owner: 'demo', repo: 'webshop', ref: `heads/${branch}` })).data
      .object.sha;
  } catch {
    return undefined;
  }
};

describe('a direct invoke of the code tools function in the sandbox', () => {
  it('refuses to write to another conversation’s work branch, which keeps its head', async () => {
    const victim = bugWorkBranch('bug-investigation-victim');
    const own = await invoke('bug-investigation-victim', victim, 'write_file', {
      path: 'NOTES.md',
      content: 'the victim’s work\n',
    });
    expect(own.ok).toBe(true);
    const head = await headOf(victim);
    expect(head).toBeDefined();

    const attack = await invoke('bug-investigation-attacker', victim, 'write_file', {
      path: 'package.json',
      content: '{"scripts":{"test":"echo ok"}}\n',
    });

    expect(attack.ok).toBe(false);
    expect(attack.error).toBe(
      `write_file: writing to branch ${JSON.stringify(victim)} is refused: it is not a work branch of conversation ` +
        `"bug-investigation-attacker" (its own: ${JSON.stringify(bugWorkBranch('bug-investigation-attacker'))})`,
    );
    expect(await headOf(victim)).toBe(head);
    expect(await headOf(bugWorkBranch('bug-investigation-attacker'))).toBeUndefined();
  });
});
