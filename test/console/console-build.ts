import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { build } from 'vite';
import { eventually } from '../support/eventually.ts';

/**
 * Builds the console the browser tests load (`dist/console/`, which the sandbox serves) once per
 * change of what it is built from, not once per test file. A build records the files its bundle
 * was made of (Rollup's module list: the console's sources and what they import from elsewhere,
 * such as `lambdas/shared/money.ts`) with a digest of them, of everything under `console/` and of
 * Vite's version; a later file whose digest of the same inputs matches reuses the bundle. Test
 * files run in parallel workers: one builds while the others wait on a lock directory, so no
 * worker empties `dist/console/` while another's page loads from it.
 */

const ROOT = process.cwd();
const CONSOLE = join(ROOT, 'console');
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'console');
const RECORD = join(DIST, 'console.inputs.json');
const LOCK = join(DIST, 'console.build-lock');
/** A lock older than this was left by a killed process (a build takes seconds). */
const STALE_LOCK_MS = 120_000;

interface BuildRecord {
  /** The bundle's inputs outside `console/`, relative to the root. */
  inputs: string[];
  digest: string;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The digest of everything under `console/`, of `inputs`, and of Vite's version; undefined if an input is gone. */
export function consoleDigest(inputs: readonly string[]): string | undefined {
  const hash = createHash('sha256');
  const vite = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'vite', 'package.json'), 'utf8')) as {
    version: string;
  };
  hash.update(`vite ${vite.version}\n`);
  const files = [...filesUnder(CONSOLE).map((file) => relative(ROOT, file)), ...inputs];
  for (const file of [...new Set(files)].sort()) {
    if (!existsSync(join(ROOT, file))) return undefined;
    hash.update(`${file}\n`);
    hash.update(readFileSync(join(ROOT, file)));
  }
  return hash.digest('hex');
}

/** Whether `dist/console/` was built from the inputs as they are now. */
async function upToDate(): Promise<boolean> {
  if (!existsSync(join(OUT, 'index.html'))) return false;
  const record = await readFile(RECORD, 'utf8').then(
    (text) => JSON.parse(text) as BuildRecord,
    () => undefined,
  );
  return record !== undefined && consoleDigest(record.inputs) === record.digest;
}

async function acquireLock(): Promise<void> {
  await mkdir(DIST, { recursive: true });
  for (;;) {
    try {
      await mkdir(LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // Another process holds the lock: wait until it lets go, or until the lock is old enough to
    // be a crashed build's (then taken over); one of the two comes within STALE_LOCK_MS.
    const age = await eventually(
      lockAge,
      (ms) => ms === undefined || ms > STALE_LOCK_MS,
      "another worker's console build to release its lock",
      // The age grows at every look: a look every 100 ms, not at the first pause's pace.
      { intervalMs: 100 },
    );
    if (age !== undefined) await rm(LOCK, { recursive: true, force: true });
  }
}

/** How long ago the build lock was taken, or undefined when nobody holds it. */
const lockAge = (): Promise<number | undefined> =>
  stat(LOCK).then(
    (s) => Date.now() - s.mtimeMs,
    () => undefined,
  );

/** Builds the console with its Vite config, returning the files of `console/`'s bundle outside `console/`. */
async function buildConsole(): Promise<string[]> {
  const result = await build({ configFile: join(CONSOLE, 'vite.config.ts'), logLevel: 'warn' });
  const outputs = Array.isArray(result) ? result : [result];
  const inputs = new Set<string>();
  for (const output of outputs) {
    if (!('output' in output)) throw new Error('the console build returned a watcher, not a bundle');
    for (const item of output.output) {
      if (item.type !== 'chunk') continue;
      for (const module of Object.keys(item.modules)) {
        const id = module.split('?')[0] ?? module;
        const path = relative(ROOT, id);
        // Virtual modules (`\0vite/...`) are Vite's, covered by its version.
        if (isAbsolute(id) && !path.startsWith('..') && !path.startsWith('console/')) inputs.add(path);
      }
    }
  }
  return [...inputs].sort();
}

/** Builds the console unless `dist/console/` was built from the very inputs it has now. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (await upToDate()) return;
  await acquireLock();
  try {
    // Another worker may have built it while this one waited.
    if (await upToDate()) return;
    await rm(RECORD, { force: true });
    const inputs = await buildConsole();
    const digest = consoleDigest(inputs);
    if (digest === undefined) throw new Error('an input of the console build vanished during the build');
    await writeFile(RECORD, JSON.stringify({ inputs, digest } satisfies BuildRecord));
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}
