import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SANDBOX_NODE_FLAGS } from '../../local/node-flags.ts';

/**
 * Every npm script that hosts a sandbox runs it with the sandbox's V8 flags: `npm run dev`
 * (local/main.ts) and each benchmark that starts one (it imports a workflow harness, the
 * misbehaviour scenarios or local/sandbox.ts). A script written without them would time the
 * sandbox with another collector, and its figures would not compare with the others'.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;
const STARTS_A_SANDBOX = /from '\.\.\/(test\/sandbox\/[\w-]+-(harness|scenarios)|local\/sandbox)\.ts'/;

/** The file a script runs with tsx, and the flags it passes before it. */
function tsxRun(command: string): { file: string; flags: string[] } | undefined {
  const match = /\btsx((?: --[\w-]+(?:=\S+)?)*) ((?:local|bench|scripts)\/[\w/-]+\.ts)\b/.exec(command);
  if (!match?.[2]) return undefined;
  return { file: match[2], flags: (match[1] ?? '').trim().split(/\s+/).filter(Boolean) };
}

const hosts = Object.entries(scripts).flatMap(([name, command]) => {
  const run = tsxRun(command);
  if (!run) return [];
  const hostsSandbox =
    run.file === 'local/main.ts' ||
    (run.file.startsWith('bench/') && STARTS_A_SANDBOX.test(readFileSync(join(ROOT, run.file), 'utf8')));
  return hostsSandbox ? [{ name, ...run }] : [];
});

describe("the sandbox's V8 flags", () => {
  it('are found on npm run dev and the benchmarks that start a sandbox', () => {
    expect(hosts.map((host) => host.name)).toEqual(
      expect.arrayContaining(['dev', 'bench:wake-load', 'bench:burst']),
    );
    expect(hosts.length).toBeGreaterThanOrEqual(6);
  });

  it.each(hosts.map((host) => [host.name, host] as const))('are passed by %s', (_name, host) => {
    expect(host.flags).toEqual([...SANDBOX_NODE_FLAGS]);
  });
});
