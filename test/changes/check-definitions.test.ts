import { describe, expect, it } from 'vitest';
import { buildResults, parseChecks } from '../../lambdas/builds/build-results.ts';
import { definedChecksBuildspec } from '../../lambdas/builds/buildspec.ts';
import {
  type CheckDefinition,
  defineChecks,
  packageFacts,
  sourceText,
} from '../../lambdas/builds/check-definitions.ts';

const BASE = '0123456789abcdef0123456789abcdef01234567';
const manifest = (scripts: Record<string, string>, sha = 'm1') => ({
  text: JSON.stringify({ scripts }),
  sha,
});
const webshop = { test: 'tsx --test test/*.test.ts', typecheck: 'tsc --noEmit -p tsconfig.json' };
const base = packageFacts(manifest(webshop));
const define = (branch: ReturnType<typeof packageFacts>, commands = {}) =>
  Object.fromEntries(
    defineChecks({ commands, baseSha: BASE, base, branch }).map((c) => [c.name, c]),
  ) as Record<CheckDefinition['name'], CheckDefinition>;

describe("a check's command comes from the configuration or the base commit", () => {
  it("runs the base commit's scripts, said to come from it, and skips what the base does not define", () => {
    const checks = define(packageFacts(manifest(webshop)));
    expect(checks.test).toEqual({
      name: 'test',
      command: 'npm run --silent test',
      source: { type: 'base', sha: BASE },
    });
    expect(checks.install).toMatchObject({ command: 'npm install --no-audit --no-fund' });
    expect(checks.lint.command).toBeUndefined();
    expect(checks.lint.skipped).toContain('defines no "lint" script');
    expect(sourceText(checks.test.source)).toBe('from the base commit 0123456');
  });

  it('runs a configured command as written', () => {
    const checks = define(packageFacts(manifest(webshop)), { lint: 'npx biome check .' });
    expect(checks.lint).toEqual({ name: 'lint', command: 'npx biome check .', source: { type: 'config' } });
  });

  it('installs with npm ci when the base commit has a lockfile', () => {
    const withLock = packageFacts(manifest(webshop), { 'package-lock.json': 'lock1' });
    const [install] = defineChecks({ commands: {}, baseSha: BASE, base: withLock, branch: withLock });
    expect(install?.command).toBe('npm ci --no-audit --no-fund');
    const yarn = packageFacts(manifest(webshop), { 'yarn.lock': 'y1' });
    const [installed] = defineChecks({ commands: {}, baseSha: BASE, base: yarn, branch: yarn });
    expect(installed?.command).toBe('npm install --no-audit --no-fund');
  });
});

describe('a branch that breaks the base definition fails, it is not skipped', () => {
  it('fails every check the base defines when the branch deletes package.json', () => {
    const checks = define(packageFacts(undefined));
    expect(checks.install.refused).toContain('deletes package.json');
    expect(checks.test.refused).toContain('deletes package.json');
    expect(checks.typecheck.refused).toContain('deletes package.json');
    expect(checks.lint.skipped).toBeDefined();
  });

  it('fails the test check when the branch replaces the script with echo', () => {
    const checks = define(packageFacts(manifest({ ...webshop, test: 'echo ok' }, 'm2')));
    expect(checks.test.refused).toContain('changes "test"');
    expect(checks.test.command).toBeUndefined();
  });

  it('fails the check when the branch empties or removes its script, or adds a pre-hook', () => {
    expect(define(packageFacts(manifest({ ...webshop, test: '' }, 'm2'))).test.refused).toContain(
      'empties "test"',
    );
    expect(define(packageFacts(manifest({ test: webshop.test }, 'm2'))).typecheck.refused).toContain(
      'removes "typecheck"',
    );
    expect(define(packageFacts(manifest({ ...webshop, pretest: 'exit 0' }, 'm2'))).test.refused).toContain(
      'changes "pretest"',
    );
  });

  it('fails the install when the branch adds a postinstall script, or changes package.json at all', () => {
    const added = define(packageFacts(manifest({ ...webshop, postinstall: 'curl x | sh' }, 'm2')));
    expect(added.install.refused).toContain('install script(s) postinstall');
    const deps = define(
      packageFacts(
        { text: JSON.stringify({ scripts: webshop, dependencies: { x: '1' } }), sha: 'm3' },
        undefined,
      ),
    );
    expect(deps.install.refused).toContain('changes package.json');
    expect(deps.test.command).toBe('npm run --silent test');
  });

  it('fails the install when the branch adds, changes or deletes the lockfile', () => {
    expect(define(packageFacts(manifest(webshop), { 'yarn.lock': 'lock2' })).install.refused).toContain(
      'adds the lockfile',
    );
    const locked = packageFacts(manifest(webshop), { 'package-lock.json': 'lock1' });
    const [install] = defineChecks({
      commands: {},
      baseSha: BASE,
      base: locked,
      branch: packageFacts(manifest(webshop)),
    });
    expect(install?.refused).toContain('deletes the lockfile');
  });

  it('fails a configured check whose base script the branch changed', () => {
    const checks = define(packageFacts(manifest({ ...webshop, test: 'true' }, 'm2')), {
      test: 'npm test',
    });
    expect(checks.test.refused).toContain('changes "test"');
  });

  it('fails on a package.json that does not parse', () => {
    const checks = define(packageFacts({ text: '{ nope', sha: 'm9' }));
    expect(checks.test.refused).toContain('does not parse');
  });
});

describe('the defined checks as a build, and what the build reports', () => {
  it('announces each command and origin, fails a refused check with its reason, and says why one was skipped', () => {
    const spec = definedChecksBuildspec([
      { name: 'install', command: 'npm ci', source: 'from the base commit 0123456' },
      { name: 'test', refused: 'the branch changes "test" (it\'s echo)' },
      { name: 'lint', skipped: 'no lint script' },
    ]) as { phases: { build: { commands: string[] } } };
    const commands = spec.phases.build.commands;
    expect(commands[0]).toBe('failed=0');
    expect(commands.at(-1)).toBe('[ "$failed" != 1 ]');
    // The log the shell would print for these lines.
    const log = [
      '::check-begin::install',
      '::check-command::{"command":"npm ci","source":"from the base commit 0123456"}',
      'added 3 packages',
      '::check-end::install::0',
      '::check-begin::test',
      '::check-command::{"refused":"the branch changes \\"test\\""}',
      'Refused: the branch changes "test"',
      '::check-end::test::1',
      '::check-begin::lint',
      '::check-skipped::lint',
      'no lint script',
      '::check-end::lint::0',
    ];
    const [install, test, lint] = parseChecks(log);
    expect(install).toMatchObject({
      command: 'npm ci',
      source: 'from the base commit 0123456',
      exitCode: 0,
      tail: 'added 3 packages',
    });
    expect(test).toMatchObject({ refused: 'the branch changes "test"', exitCode: 1 });
    expect(lint).toMatchObject({ skipped: true, tail: 'no lint script' });
  });

  it('quotes what it echoes, so a reason with quotes cannot end the shell word', () => {
    const spec = definedChecksBuildspec([{ name: 'test', refused: "it's `rm -rf /` $(x)" }]) as {
      phases: { build: { commands: string[] } };
    };
    const line = spec.phases.build.commands[1] ?? '';
    expect(line).toContain("'Refused: it'\\''s `rm -rf /` $(x)'");
  });
});

describe('what people are told about a build', () => {
  it('names the command and its origin of each check that ran, and why one failed without running', () => {
    const results = buildResults({
      attempt: 1,
      status: 'FAILED',
      checks: [
        {
          name: 'test',
          exitCode: 0,
          skipped: false,
          tail: '',
          command: 'npm run --silent test',
          source: 'from the base commit 0123456',
        },
        {
          name: 'install',
          exitCode: 1,
          skipped: false,
          tail: 'Refused: …',
          refused: 'the branch deletes package.json',
        },
        {
          name: 'lint',
          exitCode: 0,
          skipped: true,
          tail: 'not configured, and the base commit 0123456 defines no "lint" script',
        },
      ],
    });
    expect(results.summary).toContain(
      '• test: passed — `npm run --silent test` from the base commit 0123456',
    );
    expect(results.summary).toContain('• install: failed, not run: the branch deletes package.json');
    expect(results.summary).toContain(
      '• lint: skipped (not configured, and the base commit 0123456 defines no "lint" script)',
    );
    expect(results.passed).toBe(false);
  });
});
