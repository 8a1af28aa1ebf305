import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPTIONS_CONFIG } from './all-options.ts';
import { templateOf } from './template.ts';

/**
 * The synthesized stack checked by cfn-lint (AWS's own CloudFormation linter, an independent
 * reading of the resource specifications): the versions, aliases and deployment preferences the
 * stack publishes, and everything else, in the default configuration and with every option.
 */

const cfnLintInstalled = spawnSync('sh', ['-c', 'command -v cfn-lint'], { encoding: 'utf8' }).status === 0;
if (!cfnLintInstalled)
  console.warn('cfn-lint is not installed (pip install cfn-lint); its check steps aside');

/**
 * W3005: a `DependsOn` on a resource a `GetAtt` already waits for. aws-cdk-lib adds one from
 * each function to its role's default policy and role, so the function is created after its
 * permissions; cfn-lint calls the redundant half a warning. Nothing else is tolerated.
 */
const TOLERATED = new Set(['W3005']);

/**
 * E2531, E2533 and W2531 judge the functions' runtime against the day cfn-lint runs (Lambda's
 * deprecation calendar), so the same commit would pass today and fail next year. They are
 * reported, not failed on: the runtime is pinned on purpose (see the stack's AwsSolutions-L1
 * acknowledgement), and moving it is a change of its own.
 */
const DATED = new Set(['E2531', 'E2533', 'W2531']);

interface Finding {
  Filename: string;
  Rule: { Id: string };
  Level: string;
  Message: string;
  Location: { Path: (string | number)[] };
}

const dir = mkdtempSync(join(tmpdir(), 'cfn-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACKS = [
  ['the default configuration', () => templateOf().toJSON()],
  ['every option', () => templateOf({ config: ALL_OPTIONS_CONFIG }).toJSON()],
] as const;
const fileOf = (name: string) => join(dir, `${name.replace(/\W+/g, '-')}.template.json`);

/**
 * Every stack's findings from one cfn-lint run over all the templates: its start (loading the
 * resource specifications) costs seconds of CPU, and it lints each file apart, naming it.
 */
function lintAll(): Map<string, Finding[]> {
  for (const [name, template] of STACKS) writeFileSync(fileOf(name), JSON.stringify(template()));
  const files = STACKS.map(([name]) => fileOf(name));
  const run = spawnSync('cfn-lint', ['--format', 'json', ...files], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // Exit codes are a bit mask of what was found (2 errors, 4 warnings, 8 informational); 1 a failure to run.
  if (run.status === null || (run.status & 1) === 1) throw new Error(`cfn-lint did not run: ${run.stderr}`);
  const all = JSON.parse(run.stdout) as Finding[];
  return new Map(files.map((file) => [file, all.filter((finding) => finding.Filename === file)]));
}

describe.skipIf(!cfnLintInstalled)('cfn-lint', () => {
  let found: Map<string, Finding[]>;
  beforeAll(() => {
    found = lintAll();
  });

  it.each(STACKS.map(([name]) => name))('finds nothing in the stack of %s', (name) => {
    const all = found.get(fileOf(name)) ?? [];
    const dated = all.filter((finding) => DATED.has(finding.Rule.Id));
    if (dated.length > 0)
      console.warn(`cfn-lint, as of today: ${dated[0]?.Message} (${dated.length} function(s))`);
    const findings = all.filter((finding) => !DATED.has(finding.Rule.Id));
    const tolerated = findings.filter((finding) => TOLERATED.has(finding.Rule.Id));
    expect(tolerated.length).toBeGreaterThan(0);
    expect(
      findings
        .filter((finding) => !TOLERATED.has(finding.Rule.Id))
        .map((finding) => `${finding.Rule.Id} ${finding.Location.Path.join('/')}: ${finding.Message}`),
    ).toEqual([]);
  });
});
