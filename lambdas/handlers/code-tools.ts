import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Octokit } from '@octokit/rest';
import { DynamoWorkBranches } from '../adapters/dynamo-work-branches.ts';
import { createGitHubClient, downloadTarball, getGitHubCredentials } from '../adapters/github.ts';
import { redactedForLog } from '../redaction/index.ts';
import { ENV } from '../shared/env.ts';
import { createLogger } from '../shared/logger.ts';
import { readCodeToolsConfig } from '../tools/code/config.ts';
import { CodeToolInvocationName, runCodeTool } from '../tools/code/run-code-tool.ts';
import { TarballCache } from '../tools/code/tarball-cache.ts';
import type { CodeToolDeps } from '../tools/code/workspace.ts';
import { ToolInvocation } from '../tools/invocation.ts';
import { taskHandler } from './task-handler.ts';

/**
 * The code tools' Lambda: ONE function serves all six (`list_files`, `read_file`,
 * `search_code`, `write_file`, `delete_file`, `get_diff`), dispatching on the invocation's
 * tool name. One function rather than six because they share what makes them fast: the
 * tarball cache in `/tmp` and the GitHub client (with its installation token) live per
 * execution environment, so a read after a write, or a search after a list, finds them warm;
 * six functions would each download the same tarballs and mint their own tokens. They need
 * the same permissions (the GitHub secret), so nothing is given away by sharing.
 *
 * Refusals and wrong arguments are `ok: false` results; GitHub failures throw (a function
 * error the agent runtime reports to the model as a failed tool call).
 */
const logger = createLogger('code-tools');

let deps: (CodeToolDeps & { credentialsHash: string }) | undefined;

async function codeToolDeps(): Promise<CodeToolDeps> {
  const config = deps?.config ?? readCodeToolsConfig();
  // Powertools caches the secret for five minutes; the client (and the installation token
  // `createAppAuth` keeps in it) is rebuilt only when the secret's content changed.
  const credentials = await getGitHubCredentials({
    secretArn: config.githubSecretArn,
    tokenOverride: config.githubToken,
  });
  const credentialsHash = createHash('sha256').update(JSON.stringify(credentials)).digest('hex');
  if (deps !== undefined && deps.credentialsHash === credentialsHash) return deps;
  const octokit: Octokit = createGitHubClient({
    credentials,
    ...(config.githubBaseUrl !== undefined ? { baseUrl: config.githubBaseUrl } : {}),
    log: {
      debug: () => {},
      info: () => {},
      warn: (message) => logger.warn(message),
      error: (message) => logger.error(message),
    },
  });
  const repository = config.repository;
  const cache =
    deps?.cache ??
    new TarballCache({
      root: config.cacheDir,
      maxBytes: config.cacheMaxMb * 1024 * 1024,
      maxTarballBytes: config.tarballMaxMb * 1024 * 1024,
      // The current client, not the one of this call: credentials may rotate while the cache lives on.
      download: (sha) => downloadTarball(deps?.octokit ?? octokit, repository, sha),
    });
  deps = {
    octokit,
    repository,
    config,
    cache,
    defaultBranchMemo: deps?.defaultBranchMemo ?? {},
    commitTrees: deps?.commitTrees ?? new Map(),
    ...workBranches(),
    credentialsHash,
  };
  return deps;
}

/** Where the workflows recorded their conversations' work branches (the conversations table). */
function workBranches(): Pick<CodeToolDeps, 'workBranches'> {
  if (deps?.workBranches) return { workBranches: deps.workBranches };
  const tableName = process.env[ENV.tableName];
  // Without the table only the derived branch is owned: a recorded one is refused, never allowed.
  if (!tableName) return {};
  return { workBranches: new DynamoWorkBranches({ client: new DynamoDBClient({}), tableName }) };
}

export const handler = taskHandler({
  task: 'CodeTools',
  // A function wired to a tool that is not a code tool is a deployment defect, not something to answer.
  schema: ToolInvocation.extend({ tool: CodeToolInvocationName }),
  logger,
  run: async (invocation) => runCodeTool(invocation, await codeToolDeps()),
  summary: async (invocation, result) => ({
    tool: invocation.tool,
    ok: result.ok,
    ...(result.ok
      ? { chars: result.output.length }
      : { error: await redactedForLog(result.error, invocation.conversationId) }),
    cache: deps?.cache.stats,
  }),
});
