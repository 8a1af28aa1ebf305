import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Where each test file runs. Most files share their worker's loaded modules with the files
 * before them (the AWS SDK, zod, aws-cdk-lib are imported once per worker, not once per file);
 * a file that touches process-wide state gets a module graph of its own:
 *
 * - **fresh**: it sets `process.env`, loads a Lambda handler module (handlers keep the clients
 *   they build from the environment on first use), starts the sandbox or `npm run dev`, or
 *   spies on a function or stubs the environment. A warm worker forgets the project's modules
 *   before the file loads (`vi.resetModules()`, test/support/fresh-modules.ts), so everything
 *   it imports from the project is evaluated anew, and afterwards its environment, spies and
 *   stubs are put back: what it changed is undone, without a process of its own.
 * - **isolated**: what cannot be undone that way: module mocks (`vi.mock`, `vi.doMock`), fake
 *   timers, stubbed or assigned globals, `process.env` replaced by another object (put it back
 *   in place instead: test/support/environment.ts), or a `@vitest-isolate` comment. A process
 *   of its own.
 *
 * The rule reads the files themselves and the helpers under `test/` they import, so a new test
 * file is placed by what it does, not by a list. A file that gets its sandbox from
 * test/support/sandbox.ts (the worker's) and touches nothing else runs in the `sandbox`
 * project: warm workers, a module reset per sandbox.
 */

/** What a process of its own is needed for. */
const PROCESS_OWN =
  /vi\.(?:mock|doMock|stubGlobal|useFakeTimers)|globalThis\.[A-Za-z_]+\s*=(?!=)|process\.env\s*=(?!=)|@vitest-isolate/;
/** What a fresh module graph and the restoring of the environment, spies and stubs undo. */
const FRESH =
  /process\.env\s*(?:\.[A-Za-z_]+|\[[^\]]+\])\s*(?:\?\?|\|\||&&)?=(?!=)|Object\.assign\(\s*process\.env|delete process\.env|vi\.(?:spyOn|stubEnv)|lambdas\/handlers\/|local\/sandbox\.ts|local\/main\.ts/;

/** Relative imports of a module (`from './x.ts'`, `import('./x.ts')`). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g))
    if (match[1]) found.push(match[1]);
  return found;
}

/** What a test file does that decides where it runs. */
interface Placement {
  /** It, or a helper under `test/` it imports, needs a process of its own. */
  own: boolean;
  /** It, or a helper under `test/` it imports, touches process-wide state a fresh module graph undoes. */
  touches: boolean;
  /** It gets its sandbox from the worker's (test/support/sandbox.ts). */
  workerSandbox: boolean;
}

/**
 * The helper that gives a file the worker's sandbox: it resets the worker's modules itself, so
 * importing it does not make a file isolated (its own source names the sandbox it starts).
 */
const WORKER_SANDBOX_HELPER = join('support', 'sandbox.ts');

/** Reads `file` and the helpers under `testRoot` it imports (transitively). */
function placementOf(file: string, testRoot: string, seen: Map<string, Placement>): Placement {
  const known = seen.get(file);
  if (known !== undefined) return known;
  const placement: Placement = { own: false, touches: false, workerSandbox: false };
  seen.set(file, placement);
  const source = readFileSync(file, 'utf8');
  placement.own = PROCESS_OWN.test(source);
  placement.touches = FRESH.test(source);
  for (const specifier of relativeImports(source)) {
    const target = resolve(dirname(file), specifier);
    if (!target.startsWith(testRoot) || !existsSync(target)) continue;
    if (target === join(testRoot, WORKER_SANDBOX_HELPER)) {
      placement.workerSandbox = true;
      continue;
    }
    const imported = placementOf(target, testRoot, seen);
    placement.own ||= imported.own;
    placement.touches ||= imported.touches;
    placement.workerSandbox ||= imported.workerSandbox;
  }
  return placement;
}

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function placements(root: string): [string, Placement][] {
  const testRoot = join(root, 'test');
  const seen = new Map<string, Placement>();
  return testFiles(testRoot)
    .map((file): [string, Placement] => [relative(root, file), placementOf(file, testRoot, seen)])
    .sort(([a], [b]) => a.localeCompare(b));
}

/** The test files (relative to `root`) that need a process of their own, in a stable order. */
export function isolatedTestFiles(root: string): string[] {
  return placements(root)
    .filter(([, placement]) => placement.own)
    .map(([file]) => file);
}

/**
 * The test files (relative to `root`) that touch process-wide state a fresh module graph and
 * the restoring of the environment undo: they run in warm workers, each after a module reset.
 */
export function freshModuleTestFiles(root: string): string[] {
  return placements(root)
    .filter(([, placement]) => !placement.own && placement.touches)
    .map(([file]) => file);
}

/**
 * The test files (relative to `root`) that get the worker's sandbox and touch nothing else
 * process-wide: they run one after another in warm workers (test/support/sandbox.ts).
 */
export function workerSandboxTestFiles(root: string): string[] {
  return placements(root)
    .filter(([, placement]) => placement.workerSandbox && !placement.touches && !placement.own)
    .map(([file]) => file);
}
