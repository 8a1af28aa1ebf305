import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function run(input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'lambdas/log-analysis/cli.ts')], {
      cwd: ROOT,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('logs:templates command', () => {
  it('writes one template per input line, in order, blank lines as empty lines, and exits 0', async () => {
    const result = await run('job 17 done in 3 ms\n\njob 18 done in 40 ms\ndisk sda full\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('job <*> done in <*> ms\n\njob <*> done in <*> ms\ndisk sda full\n');
  });

  it('gives a line its final template, even when later lines generalized it', async () => {
    const result = await run(
      'user alice logged in\nuser bob logged in\nuser carol logged in\nuser dave logged in\n',
    );
    expect(result.stdout.split('\n').slice(0, 4)).toEqual(Array(4).fill('user <*> logged in'));
  });

  it('reads CRLF line ends and a last line without a newline', async () => {
    const result = await run('a 1\r\nb c\r\na 2');
    expect(result.stdout).toBe('a <*>\nb c\na <*>\n');
  });

  it('keeps lines and templates in step past its write buffers (5,000 lines, about 300 KB)', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) =>
      i % 7 === 0
        ? ''
        : `req ${i} from 10.0.${i % 256}.${i % 13} took ${i * 3} ms user=u${i % 50} status=${i % 3 === 0 ? 'ok' : 'failed'}`,
    );
    const result = await run(`${lines.join('\n')}\n`);
    const out = result.stdout.split('\n');
    expect(out).toHaveLength(lines.length + 1);
    lines.forEach((line, i) => {
      if (line === '') expect(out[i]).toBe('');
      else
        expect(out[i]).toBe(`req <*> from <*> took <*> ms user=<*> status=${i % 3 === 0 ? 'ok' : 'failed'}`);
    });
  });

  it('writes nothing for empty input', async () => {
    const result = await run('');
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });
});
