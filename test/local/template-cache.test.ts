import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  readCachedTemplate,
  sandboxTemplate,
  templateKey,
  writeCachedTemplate,
} from '../../local/template-cache.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { type SynthServer, startSynthServer } from '../support/synth-server.ts';

/** Where the cache lives and what it hashes. */
type TemplateCacheOptions = Parameters<typeof templateKey>[0];

/** The templates the cache keeps (stated here, not imported: the value is what this test checks). */
const KEEP_ENTRIES = 96;

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// The test run's synthesis server (test/global-setup.ts) is set aside: these tests synthesize
// in a process of their own, as a sandbox started outside the tests does; the server has its own tests.
const runServer = process.env.SANDBOX_SYNTH_URL;
beforeAll(() => {
  delete process.env.SANDBOX_SYNTH_URL;
});
afterAll(() => {
  if (runServer) process.env.SANDBOX_SYNTH_URL = runServer;
});

/** A repository root with a few source files, and a cache directory of its own. */
function fakeRepository(): TemplateCacheOptions {
  const root = mkdtempSync(join(tmpdir(), 'template-cache-'));
  made.push(root);
  for (const folder of ['infra', 'statemachines', 'lambdas/kernel'])
    mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, 'infra', 'stack.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'statemachines', 'bug.ts'), 'export const b = 2;\n');
  writeFileSync(join(root, 'lambdas', 'kernel', 'config.ts'), 'export const c = 3;\n');
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
  return { root, directory: join(root, '.sandbox', 'template-cache') };
}

const template = { Resources: { Table: { Type: 'AWS::DynamoDB::Table' } } };

/**
 * The default modules' template for APART_CONFIG, synthesized once by a child process of its own
 * (the run's server set aside) into an empty cache: the cache test reads it back, the server
 * test compares the server's answer with it. A child synthesis loads aws-cdk-lib (seconds), so
 * the file does it once.
 */
const APART_CONFIG = { reporterWaitSeconds: 600 };
const apartDirectories: string[] = [];
let apart: ReturnType<typeof synthesizeApartOnce> | undefined;
async function synthesizeApartOnce() {
  const directory = mkdtempSync(join(tmpdir(), 'template-cache-'));
  apartDirectories.push(directory);
  const cache = { root: process.cwd(), directory };
  return { cache, first: await sandboxTemplate({ config: APART_CONFIG, cache }) };
}
const synthesizedApart = () => {
  apart ??= synthesizeApartOnce();
  return apart;
};
afterAll(() => {
  for (const dir of apartDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the sandbox template cache', () => {
  it('keeps the key while the sources and the configuration are unchanged', () => {
    const cache = fakeRepository();

    expect(templateKey(cache, { a: 1 })).toBe(templateKey(cache, { a: 1 }));
  });

  it('changes the key when a source file, the lockfile or the configuration changes', () => {
    const cache = fakeRepository();
    const before = templateKey(cache, {});

    writeFileSync(join(cache.root, 'lambdas', 'kernel', 'config.ts'), 'export const c = 4;\n');
    const afterSource = templateKey(cache, {});
    writeFileSync(join(cache.root, 'package-lock.json'), '{"lockfileVersion":3,"x":1}\n');
    const afterLock = templateKey(cache, {});
    writeFileSync(join(cache.root, 'statemachines', 'new.ts'), 'export const d = 5;\n');
    const afterNewFile = templateKey(cache, {});

    expect(new Set([before, afterSource, afterLock, afterNewFile, templateKey(cache, { x: 1 })]).size).toBe(
      5,
    );
  });

  it('reads back what it wrote, and misses on an unknown key or a broken entry', () => {
    const cache = fakeRepository();
    const key = templateKey(cache, {});
    writeCachedTemplate(cache, key, template as never);

    expect(readCachedTemplate(cache, key)).toEqual(template);
    expect(readCachedTemplate(cache, 'f'.repeat(64))).toBeUndefined();
    writeFileSync(join(cache.directory, `${key}.json`), '{"Resources":');
    expect(readCachedTemplate(cache, key)).toBeUndefined();
  });

  it('keeps a bounded number of entries only', () => {
    const cache = fakeRepository();
    for (let i = 0; i < KEEP_ENTRIES + 4; i++) writeCachedTemplate(cache, `k${i}`, template as never);

    expect(readdirSync(cache.directory).filter((name) => name.endsWith('.json')).length).toBe(KEEP_ENTRIES);
  });

  it('drops the entry used least recently, a read counting as a use', () => {
    const cache = fakeRepository();
    for (let i = 0; i < KEEP_ENTRIES; i++) {
      writeCachedTemplate(cache, `k${i}`, template as never);
      // Written one second apart, long ago: k0 the oldest.
      utimesSync(join(cache.directory, `k${i}.json`), 1_000_000 + i, 1_000_000 + i);
    }
    expect(readCachedTemplate(cache, 'k0')).toEqual(template);
    writeCachedTemplate(cache, 'new', template as never);

    const kept = readdirSync(cache.directory).filter((name) => name.endsWith('.json'));
    expect(kept).toHaveLength(KEEP_ENTRIES);
    expect(kept).toContain('k0.json');
    expect(kept).toContain('new.json');
    expect(kept).not.toContain('k1.json');
  });

  it('synthesizes the default modules once, then serves the same template from the cache', async () => {
    const { cache, first } = await synthesizedApart();

    const second = await sandboxTemplate({ config: APART_CONFIG, cache });

    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.template).toEqual(first.template);
  });

  it('synthesizes modules a caller hands in every time, keeping nothing', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'template-cache-'));
    made.push(directory);

    const result = await sandboxTemplate({
      modules: [KERNEL_PROBE_MODULE],
      config: { channels: { probe: 'C_PROBE' } },
      cache: { root: process.cwd(), directory },
    });

    expect(result.cached).toBe(false);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('rejects a configuration the stack rejects, keeping nothing', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'template-cache-'));
    made.push(directory);

    await expect(
      sandboxTemplate({
        config: { reporterWaitSeconds: -1 } as never,
        cache: { root: process.cwd(), directory },
      }),
    ).rejects.toMatchObject({ name: 'InvalidConfigError' });
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe('the warm synthesis server (SANDBOX_SYNTH_URL)', () => {
  let server: SynthServer | undefined;
  beforeAll(async () => {
    // The run's own server when there is one (it is warm by now), else one of this file's.
    server = runServer ? { url: runServer, close: async () => {} } : await startSynthServer(process.cwd());
  });
  afterAll(async () => {
    delete process.env.SANDBOX_SYNTH_URL;
    await server?.close();
  });

  it('answers the template a process of its own synthesizes for the same configuration', async () => {
    const { first: apart } = await synthesizedApart();
    process.env.SANDBOX_SYNTH_URL = server?.url ?? '';
    const served = await sandboxTemplate({ config: APART_CONFIG, cache: false });
    delete process.env.SANDBOX_SYNTH_URL;

    expect(apart.cached).toBe(false);
    expect(served.template).toEqual(apart.template);
  });

  it("rejects a configuration the stack rejects with the stack's own error, keeping nothing", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'template-cache-'));
    made.push(directory);
    process.env.SANDBOX_SYNTH_URL = server?.url ?? '';

    await expect(
      sandboxTemplate({
        config: { reporterWaitSeconds: -1 } as never,
        cache: { root: process.cwd(), directory },
      }),
    ).rejects.toMatchObject({ name: 'InvalidConfigError' });
    expect(readdirSync(directory)).toEqual([]);
  });
});
