import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcessFailedError, runProcess, startProcess } from '../../local/process-host.ts';
import { eventually } from '../support/eventually.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Whether the process runs (a zombie waiting to be reaped has ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('the process host', () => {
  it('runs a command with its input, environment and directory, and returns its output', async () => {
    const { stdout } = await runProcess('sh', ['-c', 'printf "%s|%s|" "$GREETING" "$PWD"; cat'], {
      cwd: '/tmp',
      env: { PATH: process.env.PATH, GREETING: 'hello' },
      input: 'from stdin',
    });
    expect(stdout).toBe('hello|/tmp|from stdin');
  });

  it('reports a command that did not exit 0 with its status and standard error', async () => {
    const failure = await runProcess('sh', ['-c', 'echo broken >&2; exit 3']).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ProcessFailedError);
    expect((failure as ProcessFailedError).end.code).toBe(3);
    expect((failure as ProcessFailedError).stderr).toBe('broken\n');
  });

  it('says a command could not start, naming it', async () => {
    const started = startProcess('no-such-command-anywhere', []);
    await expect(started.pid).rejects.toMatchObject({
      name: 'ProcessStartError',
      message: expect.stringContaining('could not start no-such-command-anywhere'),
    });
    await expect(started.ended).rejects.toThrow('could not start no-such-command-anywhere');
  });

  it('streams output as it comes when asked, and keeps its order', async () => {
    const chunks: string[] = [];
    const end = await startProcess('sh', ['-c', 'for i in 1 2 3; do echo "line $i"; done; echo oops >&2'], {
      onOutput: (data, stream) => chunks.push(`${stream}:${data.toString()}`),
    }).ended;
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.stdout.length).toBe(0);
    const stdout = chunks.filter((c) => c.startsWith('stdout:')).map((c) => c.slice('stdout:'.length));
    expect(stdout.join('')).toBe('line 1\nline 2\nline 3\n');
    expect(chunks.some((c) => c === 'stderr:oops\n')).toBe(true);
  });

  it('kills a detached command with its whole process group', async () => {
    let printed = '';
    const started = startProcess('sh', ['-c', 'sleep 600 & echo $!; wait'], {
      detached: true,
      onOutput: (data) => {
        printed += data.toString();
      },
    });
    const sleeper = await eventually(
      () => Number(printed.trim()),
      (pid) => pid > 0,
      'the background sleep to say its pid',
    );
    expect(alive(sleeper)).toBe(true);
    started.kill('SIGKILL');
    expect((await started.ended).signal).toBe('SIGKILL');
    // The group's other member went with its leader.
    await eventually(
      () => alive(sleeper),
      (running) => !running,
      'the background sleep to end with its group',
    );
  });

  it('gives the same answers with SANDBOX_PROCESS_HOST=off (from this process)', async () => {
    const previous = process.env.SANDBOX_PROCESS_HOST;
    process.env.SANDBOX_PROCESS_HOST = 'off';
    try {
      expect((await runProcess('cat', [], { input: 'direct' })).stdout).toBe('direct');
      await expect(runProcess('sh', ['-c', 'exit 4'])).rejects.toThrow('exited 4');
      await expect(startProcess('no-such-command-anywhere', []).ended).rejects.toMatchObject({
        name: 'ProcessStartError',
        message: expect.stringContaining('could not start no-such-command-anywhere'),
      });
    } finally {
      if (previous === undefined) delete process.env.SANDBOX_PROCESS_HOST;
      else process.env.SANDBOX_PROCESS_HOST = previous;
    }
  });

  it('is one process however often its module is evaluated (a test worker resets its modules per file)', async () => {
    const parentOf = async (run: typeof runProcess) => Number((await run('sh', ['-c', 'echo $PPID'])).stdout);
    const first = await parentOf(runProcess);
    // The same source evaluated again, as after a module reset: a module of its own.
    const specifier = '../../local/process-host.ts?evaluated-again';
    const again = (await import(specifier)) as { runProcess: typeof runProcess };
    expect(again.runProcess).not.toBe(runProcess);
    expect(first).not.toBe(process.pid);
    expect(await parentOf(again.runProcess)).toBe(first);
    expect(alive(first)).toBe(true);
  });

  it('ends what still runs when the process that started it ends', async () => {
    // A process starts a long command through its host, prints the command's pid, and exits.
    const script = [
      "import { startProcess } from './local/process-host.ts';",
      "const started = startProcess('sleep', ['600']);",
      'console.log(await started.pid);',
      'process.exit(0);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const sleeper = Number(output.trim());
    expect(sleeper).toBeGreaterThan(0);
    await eventually(
      () => alive(sleeper),
      (running) => !running,
      'the host to end the command its parent left',
    );
  });
});
