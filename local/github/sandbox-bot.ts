import type { GitHubEmulator } from './emulator.ts';

/**
 * The platform's own account in the sandbox's GitHub: what the code tools and the pull
 * request opener authenticate as offline (GITHUB_TOKEN), in place of the App installation
 * they use in AWS. It may write to every repository there, as an installation may.
 */
export const SANDBOX_BOT_LOGIN = 'slack-agents-bot';

/** A fresh token of the bot, made a write collaborator of every repository the emulator holds. */
export function sandboxBotToken(github: GitHubEmulator): string {
  // A Bot, as the App installation it stands for: webhooks of its own comments say so
  // (`sender.type`), and the Router ignores them.
  github.store.user(SANDBOX_BOT_LOGIN, 'Bot');
  for (const repo of github.store.repos.values()) repo.collaborators.set(SANDBOX_BOT_LOGIN, 'write');
  return github.createUserToken(SANDBOX_BOT_LOGIN);
}

/**
 * The bare repository on disk behind a clone URL of the sandbox's GitHub
 * (`https://github.com/o/r.git`, `http://127.0.0.1:PORT/o/r.git`, any host: only the path is
 * matched), so the sandbox's CodeBuild checks out the branch an agent wrote. Undefined for
 * anything else.
 */
export function sandboxRepositoryPath(github: GitHubEmulator, location: string): string | undefined {
  let path: string;
  try {
    path = new URL(location).pathname;
  } catch {
    return undefined;
  }
  const match = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(path);
  if (match === null) return undefined;
  return github.store.repository(match[1] as string, match[2] as string)?.git.gitDir;
}
