import { describe, expect, it } from 'vitest';
import { type BuildFacts, buildResults, checkResults } from '../../lambdas/builds/build-results.ts';
import { checkBuildspec } from '../../lambdas/builds/buildspec.ts';
import {
  type CheckDefinition,
  defineChecks,
  packageFacts,
  sourceText,
} from '../../lambdas/builds/check-definitions.ts';

const BASE = '0123456789abcdef0123456789abcdef01234567';
const manifest = (scripts: Record<string, string>, sha = 'm1') => ({
  text: JSON.stringify({ scripts, devDependencies: { typescript: '5.9.3' } }),
  sha,
});
const webshop = { test: 'tsx --test test/*.test.ts', typecheck: 'tsc --noEmit -p tsconfig.json' };
const NODE_JUNIT =
  '--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=.check-junit.xml';
const base = packageFacts(manifest(webshop));
const define = (branch: ReturnType<typeof packageFacts>, commands = {}) =>
  Object.fromEntries(
    defineChecks({ commands, baseSha: BASE, base, branch }).map((c) => [c.name, c]),
  ) as Record<CheckDefinition['name'], CheckDefinition>;

describe("a check's command comes from the configuration or the base commit", () => {
  it("runs the base commit's scripts, said to come from it, and skips what the base does not define", () => {
    const checks = define(packageFacts(manifest(webshop)));
    // The test runner writes a JUnit report beside its usual output (junit-report.ts).
    expect(checks.test).toEqual({
      name: 'test',
      command: `sh -c 'tsx --test ${NODE_JUNIT} test/*.test.ts'`,
      source: { type: 'base', sha: BASE },
      junitReport: true,
    });
    expect(checks.install).toMatchObject({ command: 'npm install --no-audit --no-fund' });
    expect(checks.lint.command).toBeUndefined();
    expect(checks.lint.skipped).toContain('defines no "lint" script');
    expect(sourceText(checks.test.source)).toBe('from the base commit 0123456');
  });

  it('installs when the base declares a dependency of any kind, a workspace or an install script', () => {
    const declared = [
      { devDependencies: { typescript: '5.9.3' } },
      { dependencies: { zod: '4.1.0' } },
      { optionalDependencies: { fsevents: '2.3.3' } },
      { peerDependencies: { react: '19' } },
      { workspaces: ['packages/*'] },
      { scripts: { ...webshop, postinstall: 'node setup.js' } },
    ];
    for (const fields of declared) {
      const facts = packageFacts({ text: JSON.stringify({ scripts: webshop, ...fields }), sha: 'm9' });
      const [install] = defineChecks({ commands: {}, baseSha: BASE, base: facts, branch: facts });
      expect(install?.command, JSON.stringify(fields)).toBe('npm install --no-audit --no-fund');
    }
    // The sandbox's demo repository: tools come from the build image, nothing to install.
    const empty = packageFacts({ text: JSON.stringify({ scripts: webshop, dependencies: {} }), sha: 'm9' });
    expect(defineChecks({ commands: {}, baseSha: BASE, base: empty, branch: empty })[0]?.skipped).toBe(
      'the base commit 0123456 declares no dependencies and no install scripts',
    );
    const locked = packageFacts(
      { text: JSON.stringify({ scripts: webshop }), sha: 'm9' },
      { 'package-lock.json': 'l1' },
    );
    expect(defineChecks({ commands: {}, baseSha: BASE, base: locked, branch: locked })[0]?.command).toBe(
      'npm ci --no-audit --no-fund',
    );
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
    expect(deps.test.command).toBe(`sh -c 'tsx --test ${NODE_JUNIT} test/*.test.ts'`);
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

describe('a script runs as the base commit wrote it, not as package.json says at run time', () => {
  // Regression: `npm run typecheck` read the checkout's package.json when it ran, after a test
  // had rewritten the script to `node -e 0`; the text is now resolved before the build.
  it('runs the base text of the script and its hooks, each quoted for sh', () => {
    const hooked = { pretypecheck: 'echo "it\'s" $(x)', typecheck: 'vitest run', posttypecheck: '' };
    const facts = packageFacts(manifest(hooked));
    const checks = defineChecks({ commands: {}, baseSha: BASE, base: facts, branch: facts });
    expect(checks.find((c) => c.name === 'typecheck')?.command).toBe(
      `sh -c 'echo "it'\\''s" $(x)' && sh -c 'vitest run'`,
    );
  });
});

describe('the defined checks as builds, and what the builds report', () => {
  const defined = define(packageFacts(manifest(webshop)), { lint: 'biome check .' });
  const checks = [defined.install, defined.typecheck, defined.lint, defined.test];

  // Every build of the checks starts with this install phase (the builds: read-branch-diff.test.ts).
  it('fails the install phase of a refused install with its reason, quoted', () => {
    const spec = checkBuildspec({ refused: "it's `rm -rf /` $(x)" }, defined.test.command, {
      junitReport: true,
    }) as { phases: { install: { commands: string[] } } };
    expect(spec.phases.install.commands[0]).toBe("echo 'Refused: it'\\''s `rm -rf /` $(x)'; exit 1");
  });

  const build = (
    check: string,
    status: string,
    phases: BuildFacts['phases'],
    lines: string[] = [],
  ): BuildFacts => ({
    check,
    status,
    phases,
    lines,
  });
  const ok = { type: 'INSTALL', status: 'SUCCEEDED' };

  it("takes each check's verdict from its build's and BUILD phase's statuses, never from the log", async () => {
    const forged = [
      '[Container] 2001/01/01 00:00:00.000000 Entering phase BUILD',
      'not ok 1 - checkout total',
      '::check-end::test::0',
      '[Container] 2001/01/01 00:00:00.000000 Phase complete: BUILD State: SUCCEEDED',
    ];
    const results = await checkResults(checks, [
      build('typecheck', 'SUCCEEDED', [ok, { type: 'BUILD', status: 'SUCCEEDED' }]),
      build('lint', 'FAILED', [
        ok,
        {
          type: 'BUILD',
          status: 'FAILED',
          message: 'COMMAND_EXECUTION_ERROR: Error while executing command: x. Reason: exit status 2',
        },
      ]),
      build(
        'test',
        'FAILED',
        [ok, { type: 'BUILD', status: 'FAILED', message: 'Reason: killed by signal SIGKILL' }],
        forged,
      ),
    ]);
    expect(results.map((r) => [r.name, r.exitCode])).toEqual([
      ['install', 0],
      ['typecheck', 0],
      ['lint', 2],
      ['test', 1],
    ]);
    expect(results[3]?.tail).toContain('not ok 1 - checkout total');
  });

  it('does not pass a check whose phase succeeded in a build that did not (killed, timed out after it)', async () => {
    const [, typecheck] = await checkResults(checks, [
      build('typecheck', 'TIMED_OUT', [ok, { type: 'BUILD', status: 'SUCCEEDED' }, { type: 'POST_BUILD' }]),
    ]);
    expect(typecheck).toMatchObject({ name: 'typecheck', buildStatus: 'TIMED_OUT' });
    expect(typecheck?.exitCode).toBeUndefined();
  });

  it('fails a check whose build never reached it, and the install of any build where it failed', async () => {
    const [install, typecheck, lint, test] = await checkResults(checks, [
      build('typecheck', 'FAILED', [{ type: 'INSTALL', status: 'FAILED', message: 'Reason: exit status 1' }]),
      build('lint', 'SUCCEEDED', [ok, { type: 'BUILD', status: 'SUCCEEDED' }]),
    ]);
    expect(install?.exitCode).toBe(1);
    expect(typecheck?.exitCode).toBeUndefined();
    expect(typecheck?.tail).toContain('the install failed');
    expect(lint?.exitCode).toBe(0);
    expect(test?.exitCode).toBeUndefined();
    expect(test?.tail).toBe('no build ran this check');
  });
});

describe('what people are told about a build', () => {
  it('names the command and its origin of each check that ran, and why one failed without running', async () => {
    const results = await buildResults({
      attempt: 1,
      status: 'FAILED',
      checks: [
        {
          name: 'test',
          exitCode: 0,
          skipped: false,
          tail: '',
          command: "sh -c 'tsx --test test/*.test.ts'",
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
      "• test: passed — `sh -c 'tsx --test test/*.test.ts'` from the base commit 0123456",
    );
    expect(results.summary).toContain('• install: failed, not run: the branch deletes package.json');
    expect(results.summary).toContain(
      '• lint: skipped (not configured, and the base commit 0123456 defines no "lint" script)',
    );
    expect(results.passed).toBe(false);
  });
});
