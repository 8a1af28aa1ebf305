/**
 * Cold import of the bundled functions: each entry is bundled as `cdk deploy` bundles it, with
 * the stack's own esbuild options (infra/constructs/function-bundle.ts: ESM, minified, split into
 * chunks, a source map beside each file), then imported by a fresh Node process, which reports
 * the CPU time of the `import()` call. Three ways to run a bundle:
 * - `--enable-source-maps`: what the functions ran with before (Node parses the map at load);
 * - `no source maps`: the floor (minified positions in stack traces);
 * - `lazy source maps`: the bundle as deployed, with `lambdas/shared/source-maps-entry.ts`
 *   injected, no flag: the map is read only when a stack trace is first formatted.
 * The bundle's size is its `index.mjs` and the chunks it imports statically (what a cold start
 * reads); `lazy` is the size of the chunks behind `import()`.
 * For the lazy variant it also times the first formatting of a stack trace (the map's one-off
 * cost, paid on an error only) and shows the first frames, to show they are readable.
 * Prints the median of RUNS runs per cell; asserts nothing. Run: `npm run bench:cold-import`
 * (`ONLY=AgentTurn npm run bench:cold-import` for one function).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { functionBundleOptions, SOURCE_MAPS_ENTRY } from '../infra/constructs/function-bundle.ts';
import { buildFoldedBundle } from '../infra/constructs/static-chunks.ts';

const RUNS = Number(process.env.RUNS ?? 9);
const ENTRIES = {
  AgentTurn: 'lambdas/workflows/bug-investigation/handlers/agent-turn.ts',
  IncidentAgentTurn: 'lambdas/workflows/incident-investigation/handlers/agent-turn.ts',
  PipelineAgentTurn: 'lambdas/workflows/issue-pipeline/handlers/agent-turn.ts',
  InterviewAgentTurn: 'lambdas/workflows/requirements-interview/handlers/agent-turn.ts',
  Router: 'lambdas/handlers/router.ts',
  Drain: 'lambdas/handlers/drain.ts',
  Ingress: 'lambdas/handlers/ingress.ts',
} as const;
type Loaded = { module: string; name: string };
/**
 * The role most turns of a function run, where its roles load lazily (lambdas/agents/profile.ts
 * `ProfileLoaders`): the "first turn" column adds its chunk to the import, since a cold start
 * that runs a turn reads both. The functions not listed load their roles with the handler.
 */
const FIRST_ROLE: Partial<Record<keyof typeof ENTRIES, Loaded>> = {
  AgentTurn: {
    module: 'lambdas/workflows/bug-investigation/profiles/bug-investigator.ts',
    name: 'bugInvestigator',
  },
  IncidentAgentTurn: {
    module: 'lambdas/workflows/incident-investigation/profiles/investigator.ts',
    name: 'incidentInvestigator',
  },
  PipelineAgentTurn: {
    module: 'lambdas/workflows/issue-pipeline/profiles/writer.ts',
    name: 'issueWriter',
  },
  InterviewAgentTurn: {
    module: 'lambdas/workflows/requirements-interview/profiles/requirements-clarifier.ts',
    name: 'requirementsClarifier',
  },
};
/**
 * What else an agent turn's first invocation loads behind `import()`, so the "first turn" column
 * counts it too: the redaction's finders (its first text), the limits' schema (the adapters)
 * and the pipeline's settings. A module a tree does not have is skipped: there it loads with
 * the handler, in the import.
 */
const TURN_LOADS: Loaded[] = [
  { module: 'lambdas/redaction/finders.ts', name: 'findAll' },
  { module: 'lambdas/agents/limits.ts', name: 'agentLimitsFrom' },
];
const FUNCTION_LOADS: Partial<Record<keyof typeof ENTRIES, Loaded[]>> = {
  PipelineAgentTurn: [
    { module: 'lambdas/workflows/issue-pipeline/handlers/settings.ts', name: 'pipelineSettings' },
  ],
};
const ONLY = process.env.ONLY?.split(',');

const out = mkdtempSync(join(tmpdir(), 'cold-import-'));

async function bundle(name: string, entry: string, inject: boolean): Promise<string> {
  const outdir = join(out, inject ? 'lazy' : 'plain', name);
  const options = functionBundleOptions(process.cwd(), entry, outdir);
  buildFoldedBundle({
    ...options,
    inject: (options.inject ?? []).filter((file) => inject || !file.endsWith(SOURCE_MAPS_ENTRY)),
  });
  return join(outdir, 'index.mjs');
}

/** The deployed bundle of `entry` with `loads` imported beside the handler (a first turn's reads). */
async function bundleWithLoads(name: string, entry: string, loads: Loaded[]): Promise<string> {
  const outdir = join(out, 'first-turn', name);
  const source = join(out, `${name}-first-turn.ts`);
  const cwd = process.cwd();
  const exports = loads.map(
    (load) => `export { ${load.name} } from ${JSON.stringify(join(cwd, load.module))};`,
  );
  writeFileSync(
    source,
    [`export { handler } from ${JSON.stringify(join(cwd, entry))};`, ...exports, ''].join('\n'),
  );
  buildFoldedBundle({ ...functionBundleOptions(cwd, entry, outdir), entryPoints: { index: source } });
  return join(outdir, 'index.mjs');
}

/** Bytes of `file` and of the chunks it imports statically, transitively (what its import reads). */
function staticBytes(file: string, seen = new Set<string>()): number {
  if (seen.has(file)) return 0;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let bytes = text.length;
  for (const [, chunk] of text.matchAll(/(?:^|[;}\s])import\s*(?:[^'"();]*?from\s*)?"\.\/([^"]+\.mjs)"/g))
    if (chunk !== undefined) bytes += staticBytes(join(dirname(file), chunk), seen);
  return bytes;
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
  '| function | bundle | lazy | map | --enable-source-maps | no source maps | lazy source maps | flag tax | lazy tax | first turn |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
const traces: [string, { ms: number; frames: string[] }][] = [];
for (const [name, entry] of Object.entries(ENTRIES)) {
  if (ONLY && !ONLY.includes(name)) continue;
  const plain = await bundle(name, entry, false);
  const lazy = await bundle(name, entry, true);
  const role = FIRST_ROLE[name as keyof typeof ENTRIES];
  const loads = [
    ...(role ? [role] : []),
    ...(name.endsWith('AgentTurn') ? TURN_LOADS : []),
    ...(FUNCTION_LOADS[name as keyof typeof ENTRIES] ?? []),
  ].filter((load) => existsSync(load.module));
  const withRole = loads.length > 0 ? await bundleWithLoads(name, entry, loads) : undefined;
  const flagged: number[] = [];
  const bare: number[] = [];
  const lazyRuns: number[] = [];
  const firstTurn: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so a busy moment of the shared machine hits each variant alike.
    flagged.push(importMs(plain, ['--enable-source-maps']));
    bare.push(importMs(plain, []));
    lazyRuns.push(importMs(lazy, []));
    if (withRole) firstTurn.push(importMs(withRole, []));
  }
  const [f, b, l] = [median(flagged), median(bare), median(lazyRuns)];
  const first = withRole
    ? `${fmt(median(firstTurn))} (${role && existsSync(role.module) ? role.name : 'no role chunk'})`
    : 'as the import';
  const kb = (bytes: number) => `${Math.round(bytes / 1024)} kB`;
  const total = readdirSync(dirname(plain))
    .filter((file) => file.endsWith('.mjs'))
    .reduce((sum, file) => sum + statSync(join(dirname(plain), file)).size, 0);
  const loaded = staticBytes(plain);
  console.log(
    `| ${name} | ${kb(loaded)} | ${kb(total - loaded)} | ${kb(statSync(`${plain}.map`).size)} | ${fmt(f)} | ${fmt(b)} | ${fmt(l)} | ${(((f - b) / b) * 100).toFixed(0)}% | ${(((l - b) / b) * 100).toFixed(0)}% | ${first} |`,
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
