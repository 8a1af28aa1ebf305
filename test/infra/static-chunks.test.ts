import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { functionBundleOptions } from '../../infra/constructs/function-bundle.ts';
import { buildFoldedBundle } from '../../infra/constructs/static-chunks.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Sources in a fresh directory: a handler, a module it shares with two lazily imported ones. */
function sources(): { dir: string; entry: string } {
  const dir = mkdtempSync(join(tmpdir(), 'static-chunks-'));
  dirs.push(dir);
  const write = (name: string, lines: string[]) => writeFileSync(join(dir, name), lines.join('\n'));
  // State the handler and the lazy modules must share: one counter, not a copy each.
  write('shared.ts', [
    'export let loads = 0;',
    'loads += 1;',
    'export const seen: string[] = [];',
    'export function note(what: string) { seen.push(what); return seen.length; }',
  ]);
  write('only-lazy.ts', ["export const both = (what: string) => 'lazy:' + what;"]);
  write('first.ts', [
    "import { note } from './shared.ts';",
    "import { both } from './only-lazy.ts';",
    "export const first = () => note(both('first'));",
  ]);
  write('second.ts', [
    "import { note } from './shared.ts';",
    "import { both } from './only-lazy.ts';",
    "export const second = () => note(both('second'));",
  ]);
  write('index.ts', [
    "import { loads, note, seen } from './shared.ts';",
    'export async function handler() {',
    "  note('handler');",
    "  (await import('./first.ts')).first();",
    "  (await import('./second.ts')).second();",
    '  return { loads, seen };',
    '}',
  ]);
  return { dir, entry: join(dir, 'index.ts') };
}

function build(entry: string, outdir: string) {
  // The stack's options, for a handler outside the project and without the injected entries.
  const options = functionBundleOptions(process.cwd(), 'lambdas/shared/markers.ts', outdir);
  buildFoldedBundle({ ...options, entryPoints: { index: entry }, inject: [] });
}

describe('buildFoldedBundle', () => {
  it('leaves index.mjs importing no chunk statically, and the lazy chunks apart', () => {
    const { dir, entry } = sources();
    const outdir = join(dir, 'out');
    build(entry, outdir);

    const files = readdirSync(outdir).filter((file) => file.endsWith('.mjs'));
    const index = readFileSync(join(outdir, 'index.mjs'), 'utf8');
    expect(index).not.toMatch(/(?:^|[;}\s])import\s*(?:[^'"();]*?from\s*)?"\.\//);
    expect(files.some((file) => file.startsWith('first-'))).toBe(true);
    expect(files.some((file) => file.startsWith('second-'))).toBe(true);
    // What only the lazy modules share stays in a chunk of theirs, out of index.mjs.
    expect(index).not.toContain('lazy:');
    const first = files.find((file) => file.startsWith('first-')) ?? '';
    expect(readFileSync(join(outdir, first), 'utf8')).toContain('from"./index.mjs"');
    for (const file of files) expect(readdirSync(outdir)).toContain(`${file}.map`);
  });

  it('runs the handler and its lazy chunks on one copy of what they share', () => {
    const { dir, entry } = sources();
    const outdir = join(dir, 'out');
    build(entry, outdir);

    const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)}); console.log(JSON.stringify(await handler()));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_OPTIONS: '' },
    }).toString();

    expect(JSON.parse(output)).toEqual({ loads: 1, seen: ['handler', 'lazy:first', 'lazy:second'] });
  });

  it('writes the same files from the same sources (the asset hash is the output hash)', () => {
    const { dir, entry } = sources();
    const [first, second] = [join(dir, 'one'), join(dir, 'two')];
    build(entry, first);
    build(entry, second);

    const files = readdirSync(first).sort();
    expect(readdirSync(second).sort()).toEqual(files);
    for (const file of files)
      expect(readFileSync(join(second, file), 'utf8'), file).toBe(readFileSync(join(first, file), 'utf8'));
  });

  it('builds a bundle with no lazy chunk as one file', () => {
    const { dir } = sources();
    const entry = join(dir, 'plain.ts');
    writeFileSync(
      entry,
      "import { note } from './shared.ts';\nexport const handler = () => note('plain');\n",
    );
    const outdir = join(dir, 'out');
    build(entry, outdir);

    expect(readdirSync(outdir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
  });
});
