import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';

/**
 * Builds a split function bundle (`index.mjs` and its chunks, infra/constructs/function-bundle.ts)
 * and then folds every chunk `index.mjs` imports statically into `index.mjs` itself.
 *
 * Why: esbuild puts each set of modules shared by a different set of entry points (the handler
 * and each `import()` target) in a chunk of its own, so a handler's static imports came as some
 * 30 files. Node resolves, reads, compiles and links each file apart, about 0.7 ms of CPU per
 * file at a cold start (`npm run bench:cold-import`), for files that are always loaded together:
 * a chunk `index.mjs` imports statically is evaluated before any lazy chunk can run. So they
 * become one file, and the lazy chunks import what they share with it from `index.mjs` (live
 * bindings, `export { a as c0$a }`), never a second copy. What sits behind `import()` stays in
 * chunks of its own, read when first needed, as before.
 *
 * Done as a second esbuild pass over the first pass's output, in a staging directory: esbuild
 * reads each chunk's source map and composes it, so the maps beside the files still name the
 * TypeScript sources (lambdas/shared/lazy-source-maps.ts).
 */
export function buildFoldedBundle(options: BuildOptions): void {
  const outdir = options.outdir;
  if (outdir === undefined) throw new Error('a function bundle needs an outdir');
  const staging = mkdtempSync(join(tmpdir(), 'function-bundle-'));
  try {
    const { metafile } = buildSync({ ...options, outdir: staging, metafile: true, write: true });
    foldStaticChunks(staging, metafile, resolve(options.absWorkingDir ?? process.cwd()), {
      ...secondPassOptions(options),
      outdir,
    });
    unstageSourceMaps(outdir, staging);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The options of the second pass: the first pass's output format, none of its inputs' settings. */
function secondPassOptions(options: BuildOptions): BuildOptions {
  const { platform, target, minify, sourcemap, sourcesContent, logLevel } = options;
  const kept = Object.entries({ platform, target, minify, sourcemap, sourcesContent, logLevel });
  return {
    ...(Object.fromEntries(kept.filter(([, value]) => value !== undefined)) as BuildOptions),
    bundle: true,
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    entryNames: '[name]',
  };
}

interface Output {
  /** The file's name in the staging directory (the first pass writes no subdirectories). */
  name: string;
  exports: string[];
  staticImports: string[];
  dynamicImports: string[];
}

function outputsOf(metafile: Metafile, staging: string, workingDir: string): Map<string, Output> {
  const nameOf = (path: string) => {
    const file = resolve(workingDir, path);
    if (dirname(file) !== staging) throw new Error(`a bundle's file outside its directory: ${path}`);
    return basename(file);
  };
  const outputs = new Map<string, Output>();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (!path.endsWith('.mjs')) continue;
    const imports = output.imports.filter((entry) => !entry.external);
    outputs.set(nameOf(path), {
      name: nameOf(path),
      exports: output.exports,
      staticImports: imports
        .filter((entry) => entry.kind === 'import-statement')
        .map((entry) => nameOf(entry.path)),
      dynamicImports: imports
        .filter((entry) => entry.kind === 'dynamic-import')
        .map((entry) => nameOf(entry.path)),
    });
  }
  return outputs;
}

/** The chunks `index.mjs` imports statically, transitively, in no particular order. */
function staticChunks(outputs: Map<string, Output>): Set<string> {
  const seen = new Set<string>();
  const next = [...(outputs.get('index.mjs')?.staticImports ?? [])];
  for (let name = next.pop(); name !== undefined; name = next.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    next.push(...(outputs.get(name)?.staticImports ?? []));
  }
  return seen;
}

function foldStaticChunks(staging: string, metafile: Metafile, workingDir: string, pass: BuildOptions): void {
  const outputs = outputsOf(metafile, staging, workingDir);
  const index = outputs.get('index.mjs');
  if (index === undefined) throw new Error('a function bundle has no index.mjs');
  const folded = staticChunks(outputs);
  const lazy = [...outputs.keys()].filter((name) => name !== 'index.mjs' && !folded.has(name));
  for (const output of outputs.values())
    for (const target of output.dynamicImports)
      if (folded.has(target) || target === 'index.mjs')
        throw new Error(`${target} is imported both statically and with import(): it cannot be folded`);
  // The chunks' exports under names of their own in index.mjs: each chunk's are short (`a`, `b`).
  const prefixes = new Map([...folded].map((name, at) => [name, `c${at}$`]));
  const reexport = (names: string[], from: string, prefix = '') =>
    `export { ${names.map((name) => (prefix === '' ? name : `${name} as ${prefix}${name}`)).join(', ')} } from ${JSON.stringify(`./${from}`)};`;
  const entry = join(staging, 'folded-index-entry.mjs');
  writeFileSync(
    entry,
    [
      // First: the handler's own imports evaluate in the order they did.
      reexport(index.exports, 'index.mjs'),
      ...[...folded].map((name) => reexport(outputs.get(name)?.exports ?? [], name, prefixes.get(name))),
    ].join('\n'),
  );
  const external = lazy.map((name) => `./${name}`);
  buildSync({ ...pass, entryPoints: { index: entry }, external });
  if (lazy.length === 0) return;
  // Each folded chunk becomes a re-export of index.mjs, which the lazy chunks then import.
  for (const name of folded) {
    const prefix = prefixes.get(name) ?? '';
    const names = outputs.get(name)?.exports ?? [];
    writeFileSync(
      join(staging, name),
      names.length === 0
        ? 'export {};'
        : `export { ${names.map((n) => `${prefix}${n} as ${n}`).join(', ')} } from "./index.mjs";`,
    );
  }
  buildSync({
    ...pass,
    entryPoints: Object.fromEntries(lazy.map((name) => [name.replace(/\.mjs$/, ''), join(staging, name)])),
    external: ['./index.mjs', ...external],
  });
}

/**
 * The maps name the folded chunks' stand-ins (the re-exports of `index.mjs`) by their place in
 * the staging directory, a fresh temporary name each build: named by the file alone instead, so
 * the same sources give the same asset (its hash is the output's).
 */
function unstageSourceMaps(outdir: string, staging: string): void {
  for (const file of readdirSync(outdir)) {
    if (!file.endsWith('.map')) continue;
    const path = join(outdir, file);
    const map = JSON.parse(readFileSync(path, 'utf8')) as { sources?: string[] };
    const staged = (source: string) => !relative(staging, resolve(outdir, source)).startsWith('..');
    if (!map.sources?.some(staged)) continue;
    map.sources = map.sources.map((source) => (staged(source) ? basename(source) : source));
    writeFileSync(path, JSON.stringify(map));
  }
}
