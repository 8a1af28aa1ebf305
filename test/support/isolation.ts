import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { loadedModules } from './loaded-modules.ts';

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
 * The rule reads the files themselves and the helpers under `test/` they load, so a new test
 * file is placed by what it does, not by a list. What is loaded counts, not what is named: a
 * type import, or a handler's path in a string, loads nothing. A file that gets its sandbox from
 * test/support/sandbox.ts (the worker's) and touches nothing else runs in the `sandbox`
 * project: warm workers, a module reset per sandbox. Such a file may load a handler module with
 * `import()` in a test: the reset came first, when its sandbox started, and the next file's
 * sandbox resets again (a handler it imports statically would be loaded before the reset, and
 * would be the previous file's).
 */

/** What a process of its own is needed for. */
const PROCESS_OWN =
  /vi\.(?:mock|doMock|stubGlobal|useFakeTimers)|globalThis\.[A-Za-z_]+\s*=(?!=)|process\.env\s*=(?!=)|@vitest-isolate/;
/** What a fresh module graph and the restoring of the environment, spies and stubs undo. */
const FRESH =
  /process\.env\s*(?:\.[A-Za-z_]+|\[[^\]]+\])\s*(?:\?\?|\|\||&&)?=(?!=)|Object\.assign\(\s*process\.env|delete process\.env|vi\.(?:spyOn|stubEnv)/;
/**
 * Modules whose loading touches process-wide state: a Lambda handler keeps the clients it
 * builds from the environment on first use, and the sandbox and `npm run dev` start servers.
 * Only loading counts: a type import, or a path named in a string or a comment, loads nothing.
 */
const LOADS_STATE = /lambdas\/handlers\/|local\/sandbox\.ts$|local\/main\.ts$/;
const HANDLER = /lambdas\/handlers\//;

/** What a test file does that decides where it runs. */
interface Placement {
  /** It, or a helper under `test/` it loads, needs a process of its own. */
  own: boolean;
  /** It, or a helper under `test/` it loads, touches process-wide state a fresh module graph undoes. */
  touches: boolean;
  /** It gets its sandbox from the worker's (test/support/sandbox.ts). */
  workerSandbox: boolean;
  /** It loads a Lambda handler module with `import()` only, which a file with the worker's sandbox does after its start. */
  handlerLater: boolean;
}

/**
 * The helper that gives a file the worker's sandbox: it resets the worker's modules itself, so
 * importing it does not make a file isolated (its own source names the sandbox it starts).
 */
const WORKER_SANDBOX_HELPER = join('support', 'sandbox.ts');

/** Reads `file` and the helpers under `testRoot` it loads (transitively). */
function placementOf(file: string, testRoot: string, seen: Map<string, Placement>): Placement {
  const known = seen.get(file);
  if (known !== undefined) return known;
  const placement: Placement = { own: false, touches: false, workerSandbox: false, handlerLater: false };
  seen.set(file, placement);
  const source = readFileSync(file, 'utf8');
  const loaded = loadedModules(source);
  placement.own = PROCESS_OWN.test(source);
  placement.touches =
    FRESH.test(source) ||
    loaded.static.some((specifier) => LOADS_STATE.test(specifier)) ||
    loaded.dynamic.some((specifier) => LOADS_STATE.test(specifier) && !HANDLER.test(specifier));
  placement.handlerLater = loaded.dynamic.some((specifier) => HANDLER.test(specifier));
  for (const specifier of [...loaded.static, ...loaded.dynamic]) {
    if (!specifier.startsWith('.')) continue;
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
    placement.handlerLater ||= imported.handlerLater;
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
    .filter(
      ([, placement]) =>
        !placement.own && (placement.touches || (placement.handlerLater && !placement.workerSandbox)),
    )
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
