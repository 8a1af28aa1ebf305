/**
 * Cold import of the bundled functions: each entry is bundled as
 * `cdk deploy` bundles it (esbuild: ESM, minified, with a source map beside it), then imported
 * by a fresh Node process, which reports the CPU time of the `import()` call. Three ways to run a bundle:
 * - `--enable-source-maps`: what the functions ran with before (Node parses the map at load);
 * - `no source maps`: the floor (minified positions in stack traces);
 * - `lazy source maps`: the bundle with `lambdas/shared/source-maps-entry.ts` injected, no flag:
 *   the map is read only when a stack trace is first formatted.
 * For the lazy variant it also times the first formatting of a stack trace (the map's one-off
 * cost, paid on an error only) and shows the first frames, to show they are readable.
 * Prints the median of RUNS runs per cell; asserts nothing. Run: `npm run bench:cold-import`
 * (`ONLY=AgentTurn npm run bench:cold-import` for one function).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { SOURCE_MAPS_ENTRY } from '../infra/constructs/kernel-function.ts';

const RUNS = Number(process.env.RUNS ?? 9);
const ENTRIES = {
  AgentTurn: 'lambdas/workflows/bug-investigation/handlers/agent-turn.ts',
  Router: 'lambdas/handlers/router.ts',
  Drain: 'lambdas/handlers/drain.ts',
  Ingress: 'lambdas/handlers/ingress.ts',
} as const;
const INJECT = SOURCE_MAPS_ENTRY;
const ONLY = process.env.ONLY?.split(',');

const out = mkdtempSync(join(tmpdir(), 'cold-import-'));

async function bundle(name: string, entry: string, inject: boolean): Promise<string> {
  const outfile = join(out, inject ? 'lazy' : 'plain', name, 'index.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    mainFields: ['module', 'main'],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    ...(inject ? { inject: [INJECT] } : {}),
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

const ENV = {
  ...process.env,
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'bench',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  NODE_OPTIONS: '',
};

/**
 * CPU milliseconds (user + system) one fresh process spends importing the bundle. CPU time,
 * not wall time: on a shared machine the wall clock counts the other processes too.
 */
function importMs(file: string, flags: string[]): number {
  const script = `const c = process.cpuUsage(); await import(${JSON.stringify(pathToFileURL(file).href)}); const d = process.cpuUsage(c); console.log((d.user + d.system) / 1000);`;
  const text = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { env: ENV });
  return Number(text.toString().trim().split('\n').at(-1));
}

/** The first stack trace formatted in a lazy bundle: its cost and its first frames. */
function firstTrace(file: string): { ms: number; frames: string[] } {
  const script = [
    `const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});`,
    // An input no handler accepts: the error is thrown inside the bundle.
    'let error; try { await handler({ nonsense: true }, undefined); } catch (e) { error = e; }',
    'const t = performance.now(); const stack = String(error?.stack ?? "no error"); const ms = performance.now() - t;',
    'console.log(JSON.stringify({ ms, frames: stack.split("\\n").slice(0, 4) }));',
  ].join('\n');
  const text = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: ENV });
  return JSON.parse(text.toString().trim().split('\n').at(-1) ?? '{}');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

console.log(`cold import CPU time, median of ${RUNS} fresh processes (node ${process.version})`);
console.log(
  '| function | bundle | map | --enable-source-maps | no source maps | lazy source maps | flag tax | lazy tax |',
);
console.log('|---|---|---|---|---|---|---|---|');
const traces: [string, { ms: number; frames: string[] }][] = [];
for (const [name, entry] of Object.entries(ENTRIES)) {
  if (ONLY && !ONLY.includes(name)) continue;
  const plain = await bundle(name, entry, false);
  const lazy = await bundle(name, entry, true);
  const flagged: number[] = [];
  const bare: number[] = [];
  const lazyRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so a busy moment of the shared machine hits each variant alike.
    flagged.push(importMs(plain, ['--enable-source-maps']));
    bare.push(importMs(plain, []));
    lazyRuns.push(importMs(lazy, []));
  }
  const [f, b, l] = [median(flagged), median(bare), median(lazyRuns)];
  const kb = (path: string) => `${Math.round(statSync(path).size / 1024)} kB`;
  console.log(
    `| ${name} | ${kb(plain)} | ${kb(`${plain}.map`)} | ${fmt(f)} | ${fmt(b)} | ${fmt(l)} | ${(((f - b) / b) * 100).toFixed(0)}% | ${(((l - b) / b) * 100).toFixed(0)}% |`,
  );
  traces.push([name, firstTrace(lazy)]);
}
console.log('');
console.log('lazy source maps: the first stack trace formatted (paid once, on an error only)');
for (const [name, trace] of traces) {
  console.log(
    trace.frames[0] === 'no error'
      ? `${name}: (the handler answered that input without an error)`
      : `${name}: ${trace.ms.toFixed(0)} ms`,
  );
  for (const frame of trace.frames) console.log(`  ${frame}`);
}
rmSync(out, { recursive: true, force: true });
