import { spawn } from 'node:child_process';
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
export function runGit(
  gitDir: string,
  args: readonly string[],
  options: { input?: Buffer | string; env?: Record<string, string> } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
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
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new GitCommandError(args, null, String(error), { cause: error })));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
    });
    child.stdin.on('error', () => {
      // git may exit before reading all of its input (e.g. on a bad argument): the exit code says why.
    });
    child.stdin.end(options.input ?? '');
  });
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
