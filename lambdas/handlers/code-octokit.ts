import type { Octokit } from '@octokit/rest';
import { createGitHubClient, getGitHubCredentials } from '../adapters/github.ts';
import { type CodeToolsConfig, readCodeToolsConfig } from '../tools/code/config.ts';

/** Built on first use; the App's installation token lives in it across warm invocations. */
let octokit: Octokit | undefined;

/**
 * The configured repository and the Octokit client of a function that works on it (the code
 * tools' configuration: the repository, the credentials secret, GitHub's base URL).
 */
export async function codeOctokit(): Promise<{ octokit: Octokit; config: CodeToolsConfig }> {
  const config = readCodeToolsConfig();
  octokit ??= createGitHubClient({
    credentials: await getGitHubCredentials({
      secretArn: config.githubSecretArn,
      tokenOverride: config.githubToken,
    }),
    ...(config.githubBaseUrl !== undefined ? { baseUrl: config.githubBaseUrl } : {}),
  });
  return { octokit, config };
}
