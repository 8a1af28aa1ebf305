import type { Octokit } from '@octokit/rest';
import { codeOctokit } from '../../../handlers/code-octokit.ts';
import { kernelTableOptions } from '../../../handlers/table-options.ts';
import { DynamoIssueStateStore } from '../adapters/dynamo-issue-state.ts';
import { DynamoRefusedSources } from '../adapters/dynamo-refused-sources.ts';
import type { AuthorityDeps } from '../answers.ts';

export { pipelineSettings } from './settings.ts';

/**
 * The pipeline's adapters, built on first use (the sandbox loads handlers before it sets the
 * environment): its settings (settings.ts), the document store, and Octokit on the configured
 * repository.
 */

let store: DynamoIssueStateStore | undefined;
let refusals: DynamoRefusedSources | undefined;

export function issueStateStore(): DynamoIssueStateStore {
  store ??= new DynamoIssueStateStore(kernelTableOptions());
  return store;
}

/** Octokit and the repository it works on (the code tools' client and configuration). */
export async function github(): Promise<{ octokit: Octokit; repository: { owner: string; repo: string } }> {
  const { octokit, config } = await codeOctokit();
  return { octokit, repository: config.repository };
}

/** Who may speak for the repository: GitHub's permission, and the comments refused before. */
export function authorityDeps(octokit: Octokit, repository: { owner: string; repo: string }): AuthorityDeps {
  refusals ??= new DynamoRefusedSources(kernelTableOptions());
  return {
    repository: `${repository.owner}/${repository.repo}`,
    permissionOf: async (username) => {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repository, username });
      return data.permission;
    },
    refusals,
  };
}
