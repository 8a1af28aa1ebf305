import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Which test files need a module graph of their own. Most files share their worker's loaded
 * modules with the files before them (the AWS SDK, zod, aws-cdk-lib are imported once per
 * worker, not once per file); a file that touches process-wide state runs isolated instead:
 * one that sets `process.env`, loads a Lambda handler module (handlers keep the clients they
 * build from the environment on first use), starts the sandbox, drives a browser, spies on or
 * replaces globals, or imports a test helper under `test/` that does any of these. The rule
 * reads the files themselves, so a new test file is placed by what it does, not by a list.
 */

const PROCESS_WIDE =
  /process\.env\s*(?:\.[A-Za-z_]+|\[[^\]]+\])\s*(?:\?\?|\|\||&&)?=(?!=)|Object\.assign\(\s*process\.env|delete process\.env|vi\.(?:spyOn|stubEnv|stubGlobal|mock|doMock|useFakeTimers)|globalThis\.[A-Za-z_]+\s*=(?!=)|lambdas\/handlers\/|local\/sandbox\.ts|local\/main\.ts|playwright|chromium|@vitest-isolate/;

/** Relative imports of a module (`from './x.ts'`, `import('./x.ts')`). */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g))
    if (match[1]) found.push(match[1]);
  return found;
}

/** True when `file` or a helper under `testRoot` it imports (transitively) touches process-wide state. */
function touchesProcessState(file: string, testRoot: string, seen: Map<string, boolean>): boolean {
  const known = seen.get(file);
  if (known !== undefined) return known;
  seen.set(file, false);
  const source = readFileSync(file, 'utf8');
  let touches = PROCESS_WIDE.test(source);
  for (const specifier of relativeImports(source)) {
    if (touches) break;
    const target = resolve(dirname(file), specifier);
    if (target.startsWith(testRoot) && existsSync(target))
      touches = touchesProcessState(target, testRoot, seen);
  }
  seen.set(file, touches);
  return touches;
}

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The test files (relative to `root`) that must run isolated, in a stable order. */
export function isolatedTestFiles(root: string): string[] {
  const testRoot = join(root, 'test');
  const seen = new Map<string, boolean>();
  return testFiles(testRoot)
    .filter((file) => touchesProcessState(file, testRoot, seen))
    .map((file) => relative(root, file))
    .sort();
}
