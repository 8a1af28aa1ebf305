import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import type { BuildOptions } from 'esbuild';
import { buildFoldedBundle } from './static-chunks.ts';

/** Injected into every bundle: maps stack traces to the sources when one is formatted (lambdas/shared/lazy-source-maps.ts). */
export const SOURCE_MAPS_ENTRY = 'lambdas/shared/source-maps-entry.ts';
/** Injected into every bundle, first: reads the function's configuration file into its environment (lambdas/shared/config-file.ts). */
export const CONFIG_FILE_ENTRY = 'lambdas/shared/config-file-entry.ts';

/**
 * The esbuild options of a function's bundle: `index.mjs` (its handler) in `outdir`, and beside
 * it one chunk per module the function imports with `import()` (a model SDK, the Slack client of
 * a rare path). Code splitting is what keeps the cold start short: Node parses and evaluates only
 * `index.mjs`; a chunk behind `import()` is read the first time an invocation needs it. Built
 * with `buildFoldedBundle` (infra/constructs/static-chunks.ts), which folds the chunks
 * `index.mjs` would import statically into it, so a cold start reads one file. The bench
 * (bench/cold-import.ts) builds with these same options and the same function.
 */
export function functionBundleOptions(projectRoot: string, entry: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: projectRoot,
    entryPoints: { index: join(projectRoot, entry) },
    bundle: true,
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    minify: true,
    sourcemap: true,
    // Positions only: the lazy stack traces read no source text, and the map is parsed whole.
    sourcesContent: false,
    platform: 'node',
    target: 'node22',
    // The sources are ESM TypeScript with `.ts` import extensions, which esbuild resolves.
    format: 'esm',
    mainFields: ['module', 'main'],
    // Some dependencies still call `require` (CommonJS); give each ESM file one.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    // Run before the function's own code: the configuration file's variables enter the
    // environment, and the lazy stack trace mapping is installed.
    inject: [join(projectRoot, CONFIG_FILE_ENTRY), join(projectRoot, SOURCE_MAPS_ENTRY)],
    // Bundle the AWS SDK too (no `external`): the lockfile's pinned versions, not whatever the runtime ships.
    logLevel: 'error',
  };
}

/**
 * Writes, in `dir`, an entry composed of parts (`FunctionSpec.parts`): the entry's `compose`
 * export applied to each part's `part` export, in order, as the handler. Returns its path.
 */
function writeComposedEntry(
  dir: string,
  projectRoot: string,
  entry: string,
  parts: readonly string[],
): string {
  const from = (file: string) => JSON.stringify(join(projectRoot, file));
  const file = join(dir, 'index.ts');
  const source = [
    `import { compose } from ${from(entry)};`,
    ...parts.map((part, index) => `import { part as part${index} } from ${from(part)};`),
    `export const handler = compose([${parts.map((_, index) => `part${index}`).join(', ')}]);`,
    '',
  ];
  writeFileSync(file, source.join('\n'));
  return file;
}

/** Bundles a function's entry, or its entry composed with its parts, into `outdir`. */
function bundleFunction(projectRoot: string, entry: string, parts: readonly string[], outdir: string): void {
  if (parts.length === 0) {
    buildFoldedBundle(functionBundleOptions(projectRoot, entry, outdir));
    return;
  }
  // The composition is a file of its own for esbuild, written for this build only.
  const dir = mkdtempSync(join(tmpdir(), 'composed-entry-'));
  try {
    const file = writeComposedEntry(dir, projectRoot, entry, parts);
    buildFoldedBundle({ ...functionBundleOptions(projectRoot, entry, outdir), entryPoints: { index: file } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A function's code: its entry (or its entry composed with its parts) bundled by esbuild on
 * this machine (esbuild is one of the project's pinned dependencies, so there is no container
 * fallback to keep in step). The asset's hash is the output's, as aws-cdk-lib's NodejsFunction
 * does; a synth that skips bundling (`aws:cdk:bundling-stacks`) skips this too.
 */
export function functionCode(projectRoot: string, entry: string, parts: readonly string[] = []): Code {
  const local: ILocalBundling = {
    tryBundle(outputDir: string): boolean {
      bundleFunction(projectRoot, entry, parts, outputDir);
      return true;
    },
  };
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      local,
      // Required by the type, never run: local bundling always succeeds or throws esbuild's error.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      // The entry and its parts name the bundle, so two functions with one entry file still share one asset.
      command: ['esbuild', entry, ...parts],
    },
  });
}
