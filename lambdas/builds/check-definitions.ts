import * as z from 'zod';
import { CHECK_NAMES, type CheckName, shellQuote } from './buildspec.ts';
import type { BuildSettings } from './contract.ts';
import { withJunitReport } from './junit-report.ts';

/**
 * Which command each check runs, decided before the build from what the branch under test
 * cannot change: the configuration, or the BASE commit's `package.json` (its scripts and its
 * lockfile). The branch's own `package.json` is only compared with the base's: a check whose
 * script (or its `pre`/`post` hook) the branch removed, emptied or changed in any way fails
 * with the reason, and so does the install when the branch changed the scripts npm runs on
 * install (`preinstall`, `install`, `postinstall`, `prepare`...) or removed `package.json`.
 * A check defined nowhere on the base is skipped, and said to be.
 */

/** Where a check's command came from. */
export const CheckSource = z.union([
  z.object({ type: z.literal('config') }),
  z.object({ type: z.literal('base'), sha: z.string() }),
]);
export type CheckSource = z.infer<typeof CheckSource>;

export const CheckDefinition = z.object({
  name: z.enum(CHECK_NAMES),
  /** The command that runs (absent: the check is skipped or refused). */
  command: z.string().optional(),
  source: CheckSource.optional(),
  /** Why the check fails without running: the branch broke the base's definition. */
  refused: z.string().optional(),
  /** Why the check does not run at all. */
  skipped: z.string().optional(),
  /** The command writes a JUnit XML report (junit-report.ts): the build declares it as a report group. */
  junitReport: z.boolean().optional(),
});
export type CheckDefinition = z.infer<typeof CheckDefinition>;

/** What the build knows of one commit's `package.json`. */
export interface PackageFacts {
  /** `package.json` is there (and parses as an object). */
  present: boolean;
  /** Its `scripts` (only string values). */
  scripts: Record<string, string>;
  /** It does not parse: a branch's broken manifest fails its checks. */
  unreadable?: string;
  /** The blob sha of `package.json`, when it is there: any change of it is seen. */
  manifestSha?: string;
  /**
   * The lockfiles npm reads (`package-lock.json`, `npm-shrinkwrap.json`, `yarn.lock`), as one
   * key of their paths and blob shas, when there is one: any of them added, changed or deleted
   * changes it.
   */
  lockfileSha?: string;
  /** `package-lock.json` or `npm-shrinkwrap.json` is there: the install is `npm ci`. */
  ciLockfile?: boolean;
  /**
   * It declares no dependency of any kind, no workspace and no install script: `npm install`
   * would fetch nothing and run nothing.
   */
  installsNothing?: boolean;
}

/** The fields through which `npm install` fetches or links packages. */
const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'bundleDependencies',
  'bundledDependencies',
  'workspaces',
];

/** Nothing for npm to fetch, link or run on install. */
function declaresNothingToInstall(parsed: Record<string, unknown>, scripts: Record<string, string>): boolean {
  const empty = (value: unknown) =>
    value === undefined ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
  return DEPENDENCY_FIELDS.every((field) => empty(parsed[field])) && INSTALL_HOOKS.every((n) => !scripts[n]);
}

/** Scripts npm runs itself on `npm ci`/`npm install` of the root package. */
export const INSTALL_HOOKS = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];

/**
 * A commit's `package.json` (text and blob sha; absent: `undefined`) and its lockfiles (blob
 * sha by path) -> its facts.
 */
export function packageFacts(
  manifest: { text: string; sha: string } | undefined,
  lockfiles: Readonly<Record<string, string>> = {},
): PackageFacts {
  const paths = Object.keys(lockfiles).sort();
  const lockfile =
    paths.length === 0
      ? {}
      : {
          lockfileSha: paths.map((p) => `${p}:${lockfiles[p]}`).join(' '),
          ciLockfile: paths.some((p) => p === 'package-lock.json' || p === 'npm-shrinkwrap.json'),
        };
  if (manifest === undefined) return { present: false, scripts: {}, ...lockfile };
  const text = manifest.text;
  const known = { manifestSha: manifest.sha, ...lockfile };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { present: true, scripts: {}, ...known, unreadable: 'package.json is not a JSON object' };
    const raw = (parsed as { scripts?: unknown }).scripts;
    const scripts: Record<string, string> = {};
    if (typeof raw === 'object' && raw !== null)
      for (const [name, value] of Object.entries(raw)) if (typeof value === 'string') scripts[name] = value;
    const nothing = declaresNothingToInstall(parsed as Record<string, unknown>, scripts);
    return { present: true, scripts, ...known, ...(nothing ? { installsNothing: true } : {}) };
  } catch (error) {
    return {
      present: true,
      scripts: {},
      ...known,
      unreadable: `package.json does not parse: ${(error as Error).message}`,
    };
  }
}

const short = (sha: string) => sha.slice(0, 7);

/** The scripts of `names` whose text differs between base and branch (missing or emptied counts). */
function changedScripts(names: readonly string[], base: PackageFacts, branch: PackageFacts): string[] {
  return names.filter((n) => (base.scripts[n] ?? '') !== (branch.scripts[n] ?? ''));
}

function installDefinition(
  commands: BuildSettings['commands'],
  baseSha: string,
  base: PackageFacts,
  branch: PackageFacts,
): CheckDefinition {
  const at = `the base commit ${short(baseSha)}`;
  if (base.present && !branch.present)
    return { name: 'install', refused: `the branch deletes package.json, which ${at} has` };
  if (branch.unreadable !== undefined)
    return { name: 'install', refused: `on the branch, ${branch.unreadable}` };
  if (base.manifestSha !== branch.manifestSha) {
    const hooks = INSTALL_HOOKS.filter((n) => (base.scripts[n] ?? '') !== (branch.scripts[n] ?? ''));
    return {
      name: 'install',
      refused: `the branch changes package.json${hooks.length > 0 ? ` (its install script(s) ${hooks.join(', ')})` : ''}: dependencies and install scripts are defined by ${at}, and the build installs nothing an agent chose`,
    };
  }
  if (base.lockfileSha !== branch.lockfileSha)
    return {
      name: 'install',
      refused: `the branch ${branch.lockfileSha === undefined ? 'deletes' : base.lockfileSha === undefined ? 'adds' : 'changes'} the lockfile: dependencies are defined by ${at}`,
    };
  if (commands.install !== undefined)
    return { name: 'install', command: commands.install, source: { type: 'config' } };
  if (!base.present) return { name: 'install', skipped: `not configured, and ${at} has no package.json` };
  // Nothing to fetch and nothing to run: a build saves npm's start and its tree walk.
  if (base.installsNothing === true && base.lockfileSha === undefined)
    return { name: 'install', skipped: `${at} declares no dependencies and no install scripts` };
  return {
    name: 'install',
    command: base.ciLockfile === true ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund',
    source: { type: 'base', sha: baseSha },
  };
}

function scriptDefinition(
  name: Exclude<CheckName, 'install'>,
  commands: BuildSettings['commands'],
  baseSha: string,
  base: PackageFacts,
  branch: PackageFacts,
): CheckDefinition {
  const hooks = [`pre${name}`, name, `post${name}`];
  const defined = (base.scripts[name] ?? '').trim() !== '';
  // A configured command runs as written; the branch still may not rewrite the base's script of it.
  const changed = changedScripts(hooks, base, branch);
  if (defined || changed.some((h) => base.scripts[h] !== undefined)) {
    if (!branch.present)
      return {
        name,
        refused: `the branch deletes package.json, where the base commit ${short(baseSha)} defines "${name}"`,
      };
    if (branch.unreadable !== undefined) return { name, refused: `on the branch, ${branch.unreadable}` };
    if (changed.length > 0) {
      const how = changed
        .map((h) =>
          branch.scripts[h] === undefined
            ? `removes "${h}"`
            : (branch.scripts[h] ?? '').trim() === ''
              ? `empties "${h}"`
              : `changes "${h}"`,
        )
        .join(', ');
      return {
        name,
        refused: `the branch ${how} in package.json: the check is defined by the base commit ${short(baseSha)}`,
      };
    }
  } else if (changed.length > 0) {
    return {
      name,
      refused: `the branch adds the script(s) ${changed.join(', ')} that the base commit ${short(baseSha)} does not have`,
    };
  }
  const configured = commands[name];
  if (configured !== undefined) return { name, command: configured, source: { type: 'config' } };
  if (!defined)
    return {
      name,
      skipped: `not configured, and the base commit ${short(baseSha)} defines no "${name}" script`,
    };
  const script = base.scripts[name] ?? '';
  const reporting = name === 'test' ? withJunitReport(script) : undefined;
  const scripts = reporting === undefined ? base.scripts : { ...base.scripts, [name]: reporting };
  return {
    name,
    command: resolvedScript(name, scripts),
    source: { type: 'base', sha: baseSha },
    ...(reporting === undefined ? {} : { junitReport: true }),
  };
}

/**
 * The base commit's script `name` (with its `pre`/`post` hooks) as the shell command npm would
 * run, resolved now: each hook's text in its own `sh -c` (the build puts the checkout's
 * `node_modules/.bin` first on PATH, as npm does). The build runs this text, so nothing the
 * branch (or an earlier step) writes into `package.json` changes what the check runs.
 */
function resolvedScript(name: string, scripts: Readonly<Record<string, string>>): string {
  const steps = [`pre${name}`, name, `post${name}`]
    .map((hook) => scripts[hook])
    .filter((text): text is string => text !== undefined && text.trim() !== '')
    .map((text) => `sh -c ${shellQuote(text)}`);
  return steps.join(' && ');
}

export function defineChecks(input: {
  commands: BuildSettings['commands'];
  baseSha: string;
  base: PackageFacts;
  branch: PackageFacts;
}): CheckDefinition[] {
  const { commands, baseSha, base, branch } = input;
  return CHECK_NAMES.map((name) =>
    name === 'install'
      ? installDefinition(commands, baseSha, base, branch)
      : scriptDefinition(name, commands, baseSha, base, branch),
  );
}

/** Where a check's command came from, for people. */
export function sourceText(source: CheckSource | undefined): string {
  if (source === undefined) return '';
  return source.type === 'config' ? 'from the configuration' : `from the base commit ${short(source.sha)}`;
}
