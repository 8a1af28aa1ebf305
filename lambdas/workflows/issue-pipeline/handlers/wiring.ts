import type { Octokit } from '@octokit/rest';
import { createGitHubClient, getGitHubCredentials } from '../../../adapters/github.ts';
import { kernelTableOptions } from '../../../handlers/table-options.ts';
import { MissingConfigurationError } from '../../../shared/env.ts';
import { readCodeToolsConfig } from '../../../tools/code/config.ts';
import { DynamoIssueStateStore } from '../adapters/dynamo-issue-state.ts';
import { ISSUE_PIPELINE_SETTINGS_ENV, IssuePipelineSettings } from '../config.ts';

/**
 * The pipeline's adapters, built on first use (the sandbox loads handlers before it sets the
 * environment): its settings (`ISSUE_PIPELINE_SETTINGS`, set by its module), the document
 * store, and Octokit on the configured repository.
 */

let settings: IssuePipelineSettings | undefined;
let store: DynamoIssueStateStore | undefined;
let octokit: Octokit | undefined;

export function pipelineSettings(): IssuePipelineSettings {
  if (settings === undefined) {
    const raw = process.env[ISSUE_PIPELINE_SETTINGS_ENV];
    if (!raw) throw new MissingConfigurationError(ISSUE_PIPELINE_SETTINGS_ENV);
    settings = IssuePipelineSettings.parse(JSON.parse(raw));
  }
  return settings;
}

export function issueStateStore(): DynamoIssueStateStore {
  store ??= new DynamoIssueStateStore(kernelTableOptions());
  return store;
}

/** Octokit and the repository it works on. */
export async function github(): Promise<{ octokit: Octokit; repository: { owner: string; repo: string } }> {
  const config = readCodeToolsConfig();
  octokit ??= createGitHubClient({
    credentials: await getGitHubCredentials({
      secretArn: config.githubSecretArn,
      tokenOverride: config.githubToken,
    }),
    ...(config.githubBaseUrl !== undefined ? { baseUrl: config.githubBaseUrl } : {}),
  });
  return { octokit, repository: config.repository };
}
