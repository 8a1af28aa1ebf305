import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  describeCycle,
  findCycle,
  folderGraph,
  lambdasFolder,
  productionFiles,
  readSources,
  topFolder,
} from './source-graph.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const sources = readSources(REPO, productionFiles(REPO));

/** At most this many lines in a production file (split what grows past it). */
const MAX_LINES = 400;

/**
 * Files over the limit that other branches own and split; the lead removes each entry once
 * its split is merged (the test below fails when an entry is no longer needed).
 */
const KNOWN_OVERSIZE: Readonly<Record<string, string>> = {};

describe('the import graph', () => {
  it('reads the production sources of every top-level folder', () => {
    const folders = new Set([...sources.keys()].map(topFolder));
    expect([...folders].sort()).toEqual(['console', 'infra', 'lambdas', 'local', 'statemachines']);
  });

  it('has no cycle between top-level folders', () => {
    const graph = folderGraph(sources, topFolder);
    const cycle = findCycle(graph);
    expect(cycle && describeCycle(graph, cycle)).toBeUndefined();
  });

  it('has no cycle between the folders of lambdas/', () => {
    const graph = folderGraph(sources, lambdasFolder);
    const cycle = findCycle(graph);
    expect(cycle && describeCycle(graph, cycle)).toBeUndefined();
  });

  it('has no cycle between the files of lambdas/kernel, type imports and re-exports counted', () => {
    // Each file its own node: a file of the kernel can be read knowing only what it imports.
    const kernelFile = (path: string) => (/^lambdas\/kernel\/[^/]+\.ts$/.test(path) ? path : undefined);
    const graph = folderGraph(sources, kernelFile);
    expect(graph.size).toBeGreaterThan(20);
    const cycle = findCycle(graph);
    expect(cycle && describeCycle(graph, cycle)).toBeUndefined();
  });

  it("imports zod as a namespace: a named `z` import is an object esbuild keeps whole, every locale of zod's with it", () => {
    const named = [...sources]
      .filter(([, source]) => /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*'zod'/.test(source))
      .map(([path]) => path);
    expect(named).toEqual([]);
  });

  it('keeps the kernel free of workflows: lambdas/ folders other than workflows/ import none of it', () => {
    const graph = folderGraph(sources, lambdasFolder);
    const intoWorkflows = [...graph]
      .filter(([from, edges]) => from !== 'lambdas/workflows' && edges.has('lambdas/workflows'))
      .map(([from]) => from);
    expect(intoWorkflows).toEqual([]);
  });
});

describe('the cycle check', () => {
  const files = new Map([
    ['lambdas/kernel/route.ts', "import { x } from '../channel/hook.ts';\nexport const route = x;"],
    ['lambdas/channel/hook.ts', "import type { Y } from '../slack/post.ts';\nexport const x = 1;"],
    ['lambdas/slack/post.ts', "export { route } from '../kernel/route.ts';\nexport type Y = 1;"],
    ['lambdas/tools/tool.ts', "const lazy = () => import('../kernel/route.ts');"],
  ]);

  it('finds a cycle made by imports, type imports and re-exports, and names the imports along it', () => {
    const graph = folderGraph(files, lambdasFolder);
    const cycle = findCycle(graph);

    expect(cycle).toEqual(['lambdas/channel', 'lambdas/slack', 'lambdas/kernel', 'lambdas/channel']);
    expect(describeCycle(graph, cycle ?? [])).toContain(
      'lambdas/kernel -> lambdas/channel: lambdas/kernel/route.ts -> lambdas/channel/hook.ts',
    );
  });

  it('finds none once the edge that closes it is gone, counting dynamic imports as edges', () => {
    const acyclic = new Map(files);
    acyclic.set('lambdas/slack/post.ts', 'export type Y = 1;');
    const graph = folderGraph(acyclic, lambdasFolder);

    expect(findCycle(graph)).toBeUndefined();
    expect([...(graph.get('lambdas/tools')?.keys() ?? [])]).toEqual(['lambdas/kernel']);
  });

  it('ignores imports written in comments and strings', () => {
    const graph = folderGraph(
      new Map([
        ['infra/a.ts', "// import { b } from '../local/b.ts';\nconst s = \"from '../local/b.ts'\";"],
        ['local/b.ts', "import { a } from '../infra/a.ts';"],
      ]),
      topFolder,
    );
    expect(findCycle(graph)).toBeUndefined();
  });
});

describe('production files', () => {
  const lengths = [...sources].map(([path, text]) => [path, text.split('\n').length - 1] as const);

  it(`have at most ${MAX_LINES} lines each, but for the known exceptions`, () => {
    const over = lengths.filter(([path, lines]) => lines > MAX_LINES && !(path in KNOWN_OVERSIZE));
    expect(over).toEqual([]);
  });

  it('list no exception that is no longer needed', () => {
    const stale = Object.keys(KNOWN_OVERSIZE).filter(
      (path) => (lengths.find(([file]) => file === path)?.[1] ?? 0) <= MAX_LINES,
    );
    expect(stale).toEqual([]);
  });
});
