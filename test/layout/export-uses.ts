import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { PRODUCTION_ROOTS, withoutComments } from './source-graph.ts';

/**
 * Which production exports are used by which files, read from the sources as text (TypeScript 7
 * has no JavaScript API to ask): for the layout test that keeps an export from existing for
 * tests alone. A production export is one of a `.ts` file under `PRODUCTION_ROOTS`; its users
 * are the files that import it by name (types too), re-export it, or import its whole module
 * (`import * as`, an `import()` whose names are not destructured on the spot).
 */

/** Folders that hold no source of the repository's own. */
const SKIPPED = ['node_modules', 'dist', 'cdk.out', 'test-output'];

/** Every `.ts` file of the repository (production, tests, benchmarks, eval, scripts, the root's). */
export function repositoryFiles(repoRoot: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED.includes(entry.name)) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  };
  walk('');
  return files.sort();
}

export const isProduction = (path: string) =>
  (PRODUCTION_ROOTS as readonly string[]).some((root) => path.startsWith(`${root}/`));

export const isTest = (path: string) => path.startsWith('test/');

/** What a file exports: its own names, and the modules whose exports it passes on (`export *`). */
interface Exports {
  names: Set<string>;
  /** `export { a as b } from`: b -> [module, a]. */
  forwarded: Map<string, [string, string]>;
  star: string[];
}

/** A use of a module by a file: some names, or all of them. */
interface Use {
  from: string;
  module: string;
  names: string[] | 'all';
}

const NAME = /^(?:type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?$/;

/** `{ a, type b, c as d }` -> [[a, a], [b, b], [c, d]] (the exported name, then the local one). */
function namedList(list: string): [string, string][] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .flatMap((part) => {
      const match = NAME.exec(part);
      return match ? [[match[1] ?? '', match[2] ?? match[1] ?? ''] as [string, string]] : [];
    });
}

function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const path = normalize(join(dirname(from), specifier))
    .split(sep)
    .join('/');
  return path.endsWith('.js') ? `${path.slice(0, -3)}.ts` : path;
}

/** The exports and the uses one source makes. */
export function scan(path: string, source: string): { exports: Exports; uses: Use[] } {
  const code = withoutComments(source);
  const exports: Exports = { names: new Set(), forwarded: new Map(), star: [] };
  const uses: Use[] = [];
  const use = (specifier: string, names: string[] | 'all') => {
    const module = resolve(path, specifier);
    if (module !== undefined) uses.push({ from: path, module, names });
  };
  const declared =
    /\bexport\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|interface|type|enum|const\s+enum|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/g;
  for (const match of code.matchAll(declared)) exports.names.add(match[1] ?? '');
  for (const match of code.matchAll(/\bexport\s+(?:const|let|var)\s+\{([^}]*)\}\s*=/g))
    for (const part of (match[1] ?? '').split(',')) {
      // `{ a, b: c, d = 1 }` exports a, c and d.
      const name = (part.split(':').pop() ?? '').split('=')[0]?.trim();
      if (name) exports.names.add(name);
    }
  if (/\bexport\s+default\b/.test(code)) exports.names.add('default');
  // export { a, b as c } [from '...']
  for (const match of code.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}(?:\s*from\s*(['"])([^'"]+)\2)?/g)) {
    const list = namedList(match[1] ?? '');
    const specifier = match[3];
    for (const [original, exported] of list) {
      exports.names.add(exported);
      if (specifier !== undefined) {
        const module = resolve(path, specifier);
        if (module !== undefined) exports.forwarded.set(exported, [module, original]);
      }
    }
    if (specifier !== undefined)
      use(
        specifier,
        list.map(([original]) => original),
      );
  }
  for (const match of code.matchAll(/\bexport\s+\*\s+(?:as\s+([\w$]+)\s+)?from\s*(['"])([^'"]+)\2/g)) {
    if (match[1] !== undefined) {
      exports.names.add(match[1]);
      use(match[3] ?? '', 'all');
    } else {
      const module = resolve(path, match[3] ?? '');
      if (module !== undefined) exports.star.push(module);
    }
  }
  // import d, { a, b as c } from '...'; import type { ... } from '...'; import * as ns from '...'
  for (const match of code.matchAll(/\bimport\s+(?:type\s+)?([^'"`;()]*?)\s*from\s*(['"])([^'"]+)\2/g)) {
    const clause = match[1] ?? '';
    const specifier = match[3] ?? '';
    if (/\*\s*as\s+/.test(clause)) {
      use(specifier, 'all');
      continue;
    }
    const names: string[] = [];
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces) names.push(...namedList(braces[1] ?? '').map(([original]) => original));
    const withoutBraces = clause
      .replace(/\{[^}]*\}/, '')
      .replace(/,/g, '')
      .trim();
    if (withoutBraces !== '') names.push('default');
    use(specifier, names);
  }
  // import('...'): `const { a, b } = await import('...')` names a and b; `import('...').T` names T; else all.
  for (const match of code.matchAll(/import\s*\(\s*(['"])([^'"]+)\1\s*\)(\.[A-Za-z_$][\w$]*)?/g)) {
    const specifier = match[2] ?? '';
    if (match[3] !== undefined) {
      use(specifier, [match[3].slice(1)]);
      continue;
    }
    const before = code.slice(Math.max(0, (match.index ?? 0) - 300), match.index);
    const destructured = /(?:const|let)\s*\{([^{}]*)\}\s*=\s*(?:await\s*)?\(?\s*$/.exec(before);
    use(
      specifier,
      destructured ? namedList((destructured[1] ?? '').replace(/:\s*[\w$]+/g, '')).map(([a]) => a) : 'all',
    );
  }
  return { exports, uses };
}

/** Each production export (`path#name`) with the files that use it. */
export function exportUses(repoRoot: string): Map<string, Set<string>> {
  const files = repositoryFiles(repoRoot);
  const scanned = new Map(
    files.map((file) => [file, scan(file, readFileSync(join(repoRoot, file), 'utf8'))]),
  );
  const users = new Map<string, Set<string>>();
  for (const [file, { exports }] of scanned)
    if (isProduction(file)) for (const name of exports.names) users.set(`${file}#${name}`, new Set());
  /** Marks `name` of `module` used by `from`, following re-exports to where it is declared. */
  const mark = (module: string, name: string, from: string, seen = new Set<string>()) => {
    const key = `${module}#${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    users.get(key)?.add(from);
    const exports = scanned.get(module)?.exports;
    if (!exports) return;
    const forward = exports.forwarded.get(name);
    if (forward) mark(forward[0], forward[1], from, seen);
    if (!exports.names.has(name)) for (const star of exports.star) mark(star, name, from, seen);
  };
  const everything = (module: string, from: string, seen = new Set<string>()) => {
    if (seen.has(module)) return;
    seen.add(module);
    const exports = scanned.get(module)?.exports;
    if (!exports) return;
    for (const name of exports.names) mark(module, name, from);
    for (const star of exports.star) everything(star, from, seen);
  };
  for (const { uses } of scanned.values())
    for (const { from, module, names } of uses) {
      if (names === 'all') everything(module, from);
      else for (const name of names) mark(module, name, from);
    }
  return users;
}

/**
 * A Lambda function's entry point: `handler` of a file under a `handlers/` folder, which the stack
 * names by its path (the bundle's `index.handler`) rather than importing it, or, for a function
 * composed of parts (the Router), its entry's `compose` and each part's `part`.
 */
const isEntryPoint = (key: string) => /\/handlers\/[^#]+#(handler|compose|part)$/.test(key);

/** The production exports some test uses and no file outside test/ does, sorted. */
export function testOnlyExports(repoRoot: string): string[] {
  return [...exportUses(repoRoot)]
    .filter(([key, from]) => !isEntryPoint(key) && from.size > 0 && [...from].every(isTest))
    .map(([key]) => key)
    .sort();
}
