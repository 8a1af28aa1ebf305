import * as z from 'zod';
import { type ChangedFile, describeChange, SYMLINK_MODE } from './changed-files.ts';
import { DEFAULT_PROTECTED_PATTERNS } from './default-protected-paths.ts';
import { compilePattern, type PathPattern, prefixPatterns } from './paths.ts';

/**
 * Protected paths: the files whose change can alter how code is built, checked, deployed or
 * reviewed, or what the agents themselves are told. A change that touches one (adding,
 * modifying, deleting, renaming into or out of it, changing its mode) waits for an approver or
 * is refused, as each workflow is configured (docs/security-code-changes.md). Decided on the
 * branch's real diff: never on what an agent says it changed.
 */

/** Lockfiles by name: a change of nothing but lockfiles is protected whatever the patterns say. */
const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'pipfile.lock',
  'poetry.lock',
  'uv.lock',
  'go.sum',
  'cargo.lock',
  'gemfile.lock',
  'composer.lock',
  'packages.lock.json',
  'mix.lock',
  'deno.lock',
  'pdm.lock',
  'go.work.sum',
  'package.resolved',
  'podfile.lock',
  'pubspec.lock',
  'flake.lock',
  '.terraform.lock.hcl',
]);

const Pattern = z
  .string()
  .trim()
  .min(1)
  .max(512)
  .refine((p) => !p.split('/').includes('..'), 'a pattern may not contain a ".." segment');

/**
 * The stack's one protected-paths setting (`slackAgents.protectedPaths`), shared by every
 * workflow that writes code.
 */
export const ProtectedPathsSettings = z
  .strictObject({
    /** Patterns protected besides the defaults (globs; see docs/security-code-changes.md). @default [] */
    add: z.array(Pattern).max(200).default([]),
    /**
     * Default patterns that are NOT protected in this stack, each written exactly as in the
     * default list (a typo is a configuration error, not a silently kept default). @default []
     */
    remove: z
      .array(z.string())
      .max(200)
      .default([])
      .superRefine((removed, context) => {
        for (const pattern of removed) {
          if (!DEFAULT_PROTECTED_PATTERNS.includes(pattern))
            context.addIssue({
              code: 'custom',
              message: `"${pattern}" is not one of the default protected paths`,
            });
        }
      }),
  })
  .prefault({});
export type ProtectedPathsSettings = z.infer<typeof ProtectedPathsSettings>;

/** What a workflow does with a change to a protected path: wait for an approver, or refuse it. */
export const ProtectedChangeHandling = z.enum(['approve', 'refuse']);
export type ProtectedChangeHandling = z.infer<typeof ProtectedChangeHandling>;

/** The compiled patterns a workflow checks against. */
export interface ProtectedPaths {
  readonly patterns: readonly PathPattern[];
}

/**
 * The defaults, minus `remove`, plus `add`, plus a workflow's own extra prefixes (the issue
 * pipeline's `sensitivePaths`: each a path prefix, everything starting with it).
 */
export function protectedPaths(
  settings: ProtectedPathsSettings,
  extraPrefixes: readonly string[] = [],
): ProtectedPaths {
  const removed = new Set(settings.remove);
  const sources = [
    ...DEFAULT_PROTECTED_PATTERNS.filter((p) => !removed.has(p)),
    ...settings.add,
    ...extraPrefixes.flatMap(prefixPatterns),
  ];
  return { patterns: [...new Set(sources)].map(compilePattern) };
}

export interface ProtectedChange {
  file: ChangedFile;
  /** Why it is protected, for people: the pattern, a symbolic link, a lockfile-only change. */
  why: string;
}

function matching(rules: ProtectedPaths, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  return rules.patterns.find((p) => p.matches(path))?.source;
}

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1).toLowerCase();

/** The files of a diff that touch a protected path, each with the reason. */
export function findProtectedChanges(
  files: readonly ChangedFile[],
  rules: ProtectedPaths,
): ProtectedChange[] {
  const found: ProtectedChange[] = [];
  for (const file of files) {
    if (file.status === 'unchanged') continue;
    const why =
      file.unreadable !== undefined
        ? `its path cannot be checked: ${file.unreadable}`
        : file.mode === SYMLINK_MODE || file.previousMode === SYMLINK_MODE
          ? 'a symbolic link'
          : ((p) => (p === undefined ? undefined : `matches \`${p}\``))(
              matching(rules, file.path) ?? matching(rules, file.previousPath),
            );
    if (why !== undefined) found.push({ file, why });
  }
  const changed = files.filter((f) => f.status !== 'unchanged');
  const lockfilesOnly = changed.length > 0 && changed.every((f) => LOCKFILES.has(fileName(f.path)));
  if (lockfilesOnly) {
    for (const file of changed) {
      if (!found.some((p) => p.file === file)) found.push({ file, why: 'a lockfile-only change' });
    }
  }
  return found;
}

/** One line per protected file, for people. */
export function describeProtected(changes: readonly ProtectedChange[]): string {
  return changes.map((c) => `• ${describeChange(c.file)}: ${c.why}`).join('\n');
}

/** Characters of each file's patch shown, and of all patches together, in an approval request. */
export const PATCH_CHARS_PER_FILE = 1_200;
const PATCH_CHARS_TOTAL = 2_400;

/**
 * The real diff of the protected files, for the approver: each file's patch cut to
 * `PATCH_CHARS_PER_FILE`, all of them to `PATCH_CHARS_TOTAL` (a Slack message holds more, but
 * an approver reads the start and opens the branch for the rest), marked where cut.
 */
export function protectedDiffExcerpt(changes: readonly ProtectedChange[]): string {
  const parts: string[] = [];
  let left = PATCH_CHARS_TOTAL;
  for (const { file } of changes) {
    if (left <= 0) {
      parts.push('… (more files: see the branch)');
      break;
    }
    const body =
      file.patch === undefined
        ? file.status === 'removed'
          ? '(the whole file is deleted)'
          : '(no text diff: binary, mode only, or too large)'
        : file.patch;
    const cap = Math.min(PATCH_CHARS_PER_FILE, left);
    const shown =
      body.length <= cap ? body : `${body.slice(0, cap)}\n… (cut: ${body.length - cap} more characters)`;
    left -= shown.length;
    parts.push(`${file.path}\n${shown.replaceAll('```', "'''")}`);
  }
  return parts.join('\n\n');
}
