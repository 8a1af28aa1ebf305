import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SlackAgentsConfigInput } from '../infra/config.ts';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import type { CloudFormationTemplate } from './template.ts';

/**
 * The synthesized template, kept between sandbox starts while nothing it is made of changed
 * (issue 16 item 8). Synthesis needs aws-cdk-lib loaded (about 2 s and 200 MiB of a process's
 * memory here) and the stack built (2-5 s); a start that finds its template here does neither.
 *
 * The key is a hash of everything the template is made of: the configuration, and the content
 * of every file under the folders the stack is built from (`infra/`, `statemachines/` and
 * `lambdas/`, whose contracts and configuration schemas the stack reads), plus the lockfile
 * (the aws-cdk-lib version). Any edit there makes a new key, so a stale template is never used.
 * Only the default set of workflow modules is cached: modules a caller hands in may be
 * defined anywhere (tests define their own), so their templates are synthesized every time.
 */

/** The folders and files whose content makes the template. */
export const TEMPLATE_SOURCES = ['infra', 'statemachines', 'lambdas', 'package-lock.json'] as const;

/** Entries kept on disk: a few recent configurations (tests, `npm run dev` with settings). */
const KEEP_ENTRIES = 8;
/** Bump when the cached format changes. */
const FORMAT = 1;

export interface TemplateCacheOptions {
  /** The repository root. */
  readonly root: string;
  /** Where entries are kept (created on first write). */
  readonly directory: string;
}

/** The sandbox's cache directory under the repository root (`.sandbox/` is not committed). */
export function defaultTemplateCache(root: string): TemplateCacheOptions {
  return { root, directory: join(root, '.sandbox', 'template-cache') };
}

/** The key of a template: the configuration it was synthesized with and the sources' content. */
export function templateKey(options: TemplateCacheOptions, config: unknown): string {
  const hash = createHash('sha256');
  hash.update(`format ${FORMAT}\n`);
  hash.update(`config ${JSON.stringify(config ?? null)}\n`);
  for (const file of sourceFiles(options.root)) {
    hash.update(`file ${relative(options.root, file)}\n`);
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

/** The cached template of `key`, if any (an unreadable entry is a miss). */
export function readCachedTemplate(
  options: TemplateCacheOptions,
  key: string,
): CloudFormationTemplate | undefined {
  try {
    const parsed = JSON.parse(readFileSync(entryPath(options, key), 'utf8')) as { Resources?: unknown };
    return typeof parsed.Resources === 'object' && parsed.Resources !== null
      ? (parsed as CloudFormationTemplate)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `template` under `key`, written whole or not at all (a temporary file renamed into
 * place, so two sandboxes starting at once never read half an entry), and drops the oldest
 * entries beyond a few.
 */
export function writeCachedTemplate(
  options: TemplateCacheOptions,
  key: string,
  template: CloudFormationTemplate,
) {
  mkdirSync(options.directory, { recursive: true });
  const target = entryPath(options, key);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(template));
  renameSync(temporary, target);
  const entries = readdirSync(options.directory)
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(options.directory, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const old of entries.slice(KEEP_ENTRIES)) rmSync(old, { force: true });
}

function entryPath(options: TemplateCacheOptions, key: string): string {
  return join(options.directory, `${key}.json`);
}

/** Every file of the template's sources, in a stable order. */
function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return;
    if (stat.isFile()) {
      files.push(path);
      return;
    }
    if (!stat.isDirectory()) return;
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      walk(join(path, name));
    }
  };
  for (const source of TEMPLATE_SOURCES) walk(join(root, source));
  return files;
}

/** What the sandbox synthesizes: the workflow modules (default: every registered one) and the configuration. */
export interface SandboxTemplateOptions {
  /** @default WORKFLOW_MODULES, the only set that is cached */
  readonly modules?: readonly AnyWorkflowModule[];
  readonly config?: SlackAgentsConfigInput;
  /** @default defaultTemplateCache(process.cwd()); `false` synthesizes every time */
  readonly cache?: TemplateCacheOptions | false;
}

/**
 * The template the sandbox runs: from the cache when the default modules' sources and the
 * configuration are unchanged, else synthesized (aws-cdk-lib is loaded only then) and kept.
 * A configuration the stack rejects throws its `InvalidConfigError`, and nothing is kept.
 */
export async function sandboxTemplate(
  options: SandboxTemplateOptions,
): Promise<{ template: CloudFormationTemplate; cached: boolean }> {
  const cache =
    options.modules === undefined && options.cache !== false
      ? (options.cache ?? defaultTemplateCache(process.cwd()))
      : undefined;
  const key = cache === undefined ? undefined : templateKey(cache, options.config);
  if (cache !== undefined && key !== undefined) {
    const template = readCachedTemplate(cache, key);
    if (template !== undefined) return { template, cached: true };
  }
  const [{ synthesizeTemplate }, { WORKFLOW_MODULES }] = await Promise.all([
    import('../infra/synth.ts'),
    import('../statemachines/index.ts'),
  ]);
  const template = synthesizeTemplate({
    modules: options.modules ?? WORKFLOW_MODULES,
    ...(options.config ? { config: options.config } : {}),
  }) as unknown as CloudFormationTemplate;
  if (cache !== undefined && key !== undefined) writeCachedTemplate(cache, key, template);
  return { template, cached: false };
}
