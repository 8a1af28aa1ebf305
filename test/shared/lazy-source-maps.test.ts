import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { functionBundleOptions, SOURCE_MAPS_ENTRY } from '../../infra/constructs/function-bundle.ts';
import { buildFoldedBundle } from '../../infra/constructs/static-chunks.ts';
import { installLazySourceMaps } from '../../lambdas/shared/lazy-source-maps.ts';

const original = Error.prepareStackTrace;
afterEach(() => {
  Error.prepareStackTrace = original;
});

describe('lazy source maps', () => {
  it('names the TypeScript file and line in a bundled function without --enable-source-maps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lazy-maps-'));
    try {
      const entry = join(dir, 'entry.ts');
      const parse = resolve('lambdas/handlers/parse-task-input.ts');
      writeFileSync(
        entry,
        [
          `import * as z from 'zod';`,
          `import { parseTaskInput } from ${JSON.stringify(parse)};`,
          `export function handler() { return parseTaskInput('Drain', z.object({ conversationId: z.string() }), {}); }`,
        ].join('\n'),
      );
      const outfile = join(dir, 'out', 'index.mjs');
      // As the stack bundles a function: ESM, minified, the map beside it, the entry injected.
      await build({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        sourcemap: true,
        platform: 'node',
        format: 'esm',
        inject: [resolve(SOURCE_MAPS_ENTRY)],
        outfile,
        logLevel: 'error',
        nodePaths: [resolve('node_modules')],
      });
      const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)}); try { handler(); } catch (e) { console.log(e.stack); }`;
      const stack = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_OPTIONS: '' },
      }).toString();

      expect(stack).toMatch(/^InvalidTaskInputError: invalid input for Drain/);
      expect(stack).toMatch(/at .*\(?lambdas\/handlers\/parse-task-input\.ts:\d+:\d+\)?/);
      expect(stack).not.toContain('index.mjs:1:');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the TypeScript file of a frame in a chunk the bundle imports lazily', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lazy-maps-'));
    try {
      const entry = join(dir, 'entry.ts');
      const parse = resolve('lambdas/handlers/parse-task-input.ts');
      writeFileSync(
        entry,
        [
          `import * as z from 'zod';`,
          `export async function handler() {`,
          `  const { parseTaskInput } = await import(${JSON.stringify(parse)});`,
          `  return parseTaskInput('Drain', z.object({ conversationId: z.string() }), {});`,
          `}`,
        ].join('\n'),
      );
      const outdir = join(dir, 'out');
      // As the stack bundles a function: split into chunks, the static ones folded into
      // index.mjs, each file with its map beside it.
      const options = functionBundleOptions(process.cwd(), 'lambdas/shared/markers.ts', outdir);
      buildFoldedBundle({ ...options, entryPoints: { index: entry }, nodePaths: [resolve('node_modules')] });
      const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)}); try { await handler(); } catch (e) { console.log(e.stack); }`;
      const stack = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_OPTIONS: '' },
      }).toString();

      expect(readdirSync(outdir).filter((file) => file.endsWith('.mjs')).length).toBeGreaterThan(1);
      expect(stack).toMatch(/^InvalidTaskInputError: invalid input for Drain/);
      expect(stack).toMatch(/at .*\(?lambdas\/handlers\/parse-task-input\.ts:\d+:\d+\)?/);
      expect(stack).not.toMatch(/\.mjs:1:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the map only when a stack trace is first formatted, and once', () => {
    let reads = 0;
    installLazySourceMaps(import.meta.url, () => {
      reads += 1;
      return '{"version":3,"sources":[],"names":[],"mappings":""}';
    });
    const first = new Error('first');
    const second = new Error('second');
    expect(reads).toBe(0);

    expect(first.stack).toContain('Error: first');
    expect(second.stack).toContain('Error: second');
    expect(reads).toBe(1);
  });

  it('keeps the bundle positions when the map cannot be read', () => {
    installLazySourceMaps(import.meta.url, () => {
      throw new Error('no map here');
    });
    const stack = new Error('unmapped').stack ?? '';

    expect(stack).toContain('Error: unmapped');
    expect(stack).toContain('lazy-source-maps.test.ts:');
  });
});
