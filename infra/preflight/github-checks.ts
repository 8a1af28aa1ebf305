import { createGitHubClient, GitHubCredentials } from '../../lambdas/adapters/github.ts';
import type { AnyWorkflowModule } from '../../statemachines/workflow-module.ts';
import type { SlackAgentsConfig } from '../config.ts';
import { modulePreflights, repositoriesOf } from './deploy-steps.ts';
import { errorName, type LiveReport } from './live-checks.ts';

/**
 * The live preflight's GitHub part: the App (or token) of the GitHub credentials secret on each
 * configured repository, through Octokit at `github.baseUrl`.
 */

/** The App permissions the code tools, the fixer and the issue pipeline use (docs/deploy.md). */
export const GITHUB_APP_PERMISSIONS: Readonly<Record<string, 'read' | 'write'>> = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
  metadata: 'read',
};

export async function checkGitHub(
  config: SlackAgentsConfig,
  raw: Record<string, unknown>,
  report: LiveReport,
  modules: readonly AnyWorkflowModule[],
): Promise<void> {
  const credentials = GitHubCredentials.parse(raw);
  // The repositories the enabled modules work on (their `preflight`).
  const repositories = repositoriesOf(modulePreflights(config, modules));
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const octokit = createGitHubClient({ baseUrl: config.github.baseUrl, credentials, log: quiet });
  for (const repository of repositories) {
    const [owner = '', repo = ''] = repository.split('/');
    try {
      if ('token' in credentials) {
        const { data } = await octokit.rest.repos.get({ owner, repo });
        if (data.permissions?.push !== true)
          report.problems.push(
            `GitHub ${repository}: the token cannot push: give it Contents, Pull requests and Issues: read and write`,
          );
        else report.passed.push(`GitHub ${repository}: the token may push`);
        continue;
      }
      const { data } = await octokit.rest.apps.getRepoInstallation({ owner, repo });
      if (String(data.id) !== String(credentials.installationId))
        report.problems.push(
          `GitHub ${repository}: the App's installation here is ${data.id}, the secret says ${credentials.installationId}: put ${data.id} in installationId`,
        );
      const permissions = data.permissions as Record<string, string | undefined>;
      const lacking = Object.entries(GITHUB_APP_PERMISSIONS).filter(
        ([name, level]) =>
          !(permissions[name] === 'write' || (level === 'read' && permissions[name] === 'read')),
      );
      if (lacking.length > 0)
        report.problems.push(
          `GitHub ${repository}: the App lacks ${lacking.map(([n, l]) => `${n}: ${l}`).join(', ')}: grant them in the App's settings and accept them on the installation`,
        );
      else report.passed.push(`GitHub ${repository}: App installation ${data.id} with its permissions`);
      await octokit.rest.repos.get({ owner, repo });
    } catch (error) {
      report.problems.push(
        `GitHub ${repository}: ${errorName(error)}: install the App on the repository (its page, Install App), and check github.baseUrl`,
      );
    }
  }
}
