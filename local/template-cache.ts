import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { SlackAgentsConfigInput } from '../infra/config.ts';
import type { AnyWorkflowModule } from '../statemachines/workflow-module.ts';
import type { CloudFormationTemplate } from './template.ts';

/**
 * The synthesized template, kept between sandbox starts while nothing it is made of changed
 *. Synthesis needs aws-cdk-lib loaded (about 2 s and 200 MiB of a process's
 * memory here) and the stack built (2-5 s); a start that finds its template here does neither.
 *
 * The key is a hash of everything the template is made of: the configuration, and the content
 * of every file under the folders the stack is built from (`infra/`, `statemachines/` and
 * `lambdas/`, whose contracts and configuration schemas the stack reads), plus the lockfile
 * (the aws-cdk-lib version). Any edit there makes a new key, so a stale template is never used.
 * Only the default set of workflow modules is cached: modules a caller hands in may be
 * defined anywhere (tests define their own), so their templates are synthesized every time,
 * in process. The default modules' template is synthesized by a child process
 * (local/synth-template.ts), so even a start that misses the cache never loads aws-cdk-lib.
 */

/** The folders and files whose content makes the template. */
export const TEMPLATE_SOURCES = ['infra', 'statemachines', 'lambdas', 'package-lock.json'] as const;

/**
 * Entries kept on disk, the least recently used dropped first (a read counts as a use): the test
 * suite's sandboxes start with about fifty configurations, and `npm run dev` and the benchmarks add
 * theirs. With room for the suite's only, or with the oldest written dropped first, a warm run
 * synthesized again what another configuration had pushed out. About 350 KB each.
 */
const KEEP_ENTRIES = 96;
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
  const path = entryPath(options, key);
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { Resources?: unknown };
    if (typeof parsed.Resources !== 'object' || parsed.Resources === null) return undefined;
    markUsed(path);
    return parsed as CloudFormationTemplate;
  } catch {
    return undefined;
  }
}

/**
 * Keeps `template` under `key`, written whole or not at all (a temporary file renamed into
 * place, so two sandboxes starting at once never read half an entry), and drops the least recently used
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

/** An entry read is used: its time moves to now, so it is dropped after those not used since. */
function markUsed(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    // Dropped meanwhile by another process: the template was read all the same.
  }
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
 * configuration are unchanged, else synthesized (by a child process for the default modules)
 * and kept.
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
  const template =
    options.modules === undefined
      ? await synthesizeApart(options.config)
      : await synthesizeHere(options.modules, options.config);
  if (cache !== undefined && key !== undefined) writeCachedTemplate(cache, key, template);
  return { template, cached: false };
}

async function synthesizeHere(
  modules: readonly AnyWorkflowModule[],
  config: SlackAgentsConfigInput | undefined,
): Promise<CloudFormationTemplate> {
  const { synthesizeTemplate } = await import('../infra/synth.ts');
  return synthesizeTemplate({ modules, ...(config ? { config } : {}) }) as unknown as CloudFormationTemplate;
}

/**
 * The default modules' template, synthesized by the warm synthesis server named by
 * `SANDBOX_SYNTH_URL` when one runs (local/synth-server.ts), else by a child process of its own
 * (local/synth-template.ts).
 */
async function synthesizeApart(config: SlackAgentsConfigInput | undefined): Promise<CloudFormationTemplate> {
  const server = process.env.SANDBOX_SYNTH_URL;
  return server ? synthesizeOnServer(server, config) : synthesizeInChild(config);
}

async function synthesizeOnServer(
  server: string,
  config: SlackAgentsConfigInput | undefined,
): Promise<CloudFormationTemplate> {
  const response = await fetch(`${server}/synthesize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ config: config ?? null }),
  });
  const answer = (await response.json()) as CloudFormationTemplate & {
    error?: { name?: string; message?: string };
  };
  if (!response.ok)
    throw new SynthesisFailedError(
      answer.error?.name,
      answer.error?.message ?? `the synthesis server answered ${response.status}`,
    );
  return answer;
}

async function synthesizeInChild(
  config: SlackAgentsConfigInput | undefined,
): Promise<CloudFormationTemplate> {
  const directory = mkdtempSync(join(tmpdir(), 'sandbox-synth-'));
  const output = join(directory, 'template.json');
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'synth-template.ts'), output],
      // The child's warnings go to the terminal as the sandbox's would; its answer to stdout.
      { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } },
    );
    let answer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    child.stdin.end(JSON.stringify({ config: config ?? null }));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) {
      const failure = (JSON.parse(answer || '{}') as { error?: { name?: string; message?: string } }).error;
      throw new SynthesisFailedError(failure?.name, failure?.message ?? `synthesis exited with ${code}`);
    }
    return JSON.parse(readFileSync(output, 'utf8')) as CloudFormationTemplate;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * The stack could not be synthesized in the child process. Its `name` is the stack's own
 * error's (`InvalidConfigError` for a wrong configuration field), so callers tell them apart
 * as if the stack had been built in process.
 */
export class SynthesisFailedError extends Error {
  override readonly name: string;
  constructor(name: string | undefined, message: string) {
    super(message);
    this.name = name ?? 'SynthesisFailedError';
  }
}
