import { type ProcessEnd, startProcess } from '../process-host.ts';
import { GitCommandError } from './errors.ts';

/** Who and when, as git records an author or committer. */
export interface GitIdentity {
  name: string;
  email: string;
  /** ISO 8601. */
  date: string;
}

/**
 * Runs `git` on a bare repository and returns its standard output. The environment is cut
 * down so that nothing of the machine's own git configuration (hooks, signing, templates)
 * changes what the emulator writes.
 */
export async function runGit(
  gitDir: string,
  args: readonly string[],
  options: { input?: Buffer | string; env?: Record<string, string> } = {},
): Promise<Buffer> {
  let end: ProcessEnd;
  try {
    end = await startProcess('git', args, {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_DIR: gitDir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        HOME: gitDir,
        LC_ALL: 'C',
        ...options.env,
      },
      input: options.input ?? '',
    }).ended;
  } catch (error) {
    throw new GitCommandError(args, null, String(error), { cause: error });
  }
  if (end.code === 0) return end.stdout;
  throw new GitCommandError(args, end.code, end.stderr.toString('utf8'));
}

/** `Name <email> 1700000000 +0000` -> identity. */
export function parseIdentity(line: string): GitIdentity {
  const match = /^(.*) <([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!match) return { name: line, email: '', date: new Date(0).toISOString() };
  const [, name = '', email = '', seconds = '0'] = match;
  return { name, email, date: new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** The environment variables that make `commit-tree` record these identities. */
export function identityEnv(author: GitIdentity, committer: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: gitDate(author.date),
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: gitDate(committer.date),
  };
}

function gitDate(iso: string): string {
  return `${Math.floor(Date.parse(iso) / 1000)} +0000`;
}
