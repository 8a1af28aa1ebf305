import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/**
 * The repository's production sources and the folders their imports connect, for the layout
 * tests: no import cycle between top-level folders nor between `lambdas/*` folders, and no
 * production file over 400 lines.
 */

/** The folders holding production code (tests, benchmarks and scripts are not production). */
export const PRODUCTION_ROOTS = ['infra', 'statemachines', 'lambdas', 'local', 'console'] as const;

/** Every production `.ts` file under the roots, as a repository-relative path with `/`. */
export function productionFiles(repoRoot: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  };
  for (const root of PRODUCTION_ROOTS) walk(root);
  return files.sort();
}

/**
 * The relative module specifiers a source imports: static imports and re-exports (type-only
 * too), side-effect imports and `import()` calls. Comments are blanked out first, so an import
 * in a comment does not count; a specifier is only read right after `from`, `import` or
 * `import(`, so a string that merely looks like one does not either. (TypeScript 7's compiler
 * has no JavaScript API to ask instead.)
 */
export function relativeImports(source: string): string[] {
  const code = withoutComments(source);
  const specifiers = [
    ...code.matchAll(/\b(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/g),
    ...code.matchAll(/\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g),
    ...code.matchAll(/\bimport\s+(['"])([^'"]+)\1/g),
  ].map((match) => match[2] ?? '');
  return specifiers.filter((name) => name.startsWith('.'));
}

/** The source with its comments replaced by spaces; strings and template literals are kept. */
export function withoutComments(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const char = source[i] ?? '';
    const next = source[i + 1] ?? '';
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
      out += ' ';
    } else if (char === "'" || char === '"' || char === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== char) j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/** `lambdas/kernel/route.ts` -> `lambdas/kernel`; `infra/app.ts` -> `infra`. */
export function topFolder(path: string): string {
  return path.split('/')[0] ?? path;
}

/** The folder directly under `lambdas/` (`lambdas/workflows/x/y.ts` -> `lambdas/workflows`), or undefined. */
export function lambdasFolder(path: string): string | undefined {
  const [root, folder, ...rest] = path.split('/');
  return root === 'lambdas' && folder !== undefined && rest.length > 0 ? `lambdas/${folder}` : undefined;
}

/** Edges between folders: `from -> to` with the imports that make it, for the error message. */
export type FolderGraph = Map<string, Map<string, string[]>>;

/**
 * The folder graph of `sources` (path -> text): an edge for each import from a file in one
 * folder to a file in another, `folderOf` naming the folders (undefined: not in the graph).
 */
export function folderGraph(
  sources: ReadonlyMap<string, string>,
  folderOf: (path: string) => string | undefined,
): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const [path, source] of sources) {
    const from = folderOf(path);
    if (from === undefined) continue;
    for (const specifier of relativeImports(source)) {
      const target = normalize(join(dirname(path), specifier))
        .split(sep)
        .join('/');
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), `${path} -> ${target}`]);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** A cycle of the graph as the folders along it (first = last), or undefined when it is acyclic. */
export function findCycle(graph: FolderGraph): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'visiting') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'visiting');
    path.push(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/** The imports along a cycle, one line per edge, for a failure message that says what to fix. */
export function describeCycle(graph: FolderGraph, cycle: readonly string[]): string {
  return cycle
    .slice(1)
    .map((to, i) => {
      const from = cycle[i] ?? '';
      const imports = graph.get(from)?.get(to) ?? [];
      return `${from} -> ${to}: ${imports.slice(0, 3).join(', ')}${imports.length > 3 ? ', ...' : ''}`;
    })
    .join('\n');
}

/** The sources of the given repository-relative files. */
export function readSources(repoRoot: string, files: readonly string[]): Map<string, string> {
  return new Map(files.map((file) => [file, readFileSync(join(repoRoot, file), 'utf8')]));
}

/** A path relative to the repository root, with `/`. */
export function repoPath(repoRoot: string, absolute: string): string {
  return relative(repoRoot, absolute).split(sep).join('/');
}
