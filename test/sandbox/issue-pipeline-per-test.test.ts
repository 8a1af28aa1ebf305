import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { lastToolResults, toolResultText, toolUse } from '../support/scripted-model.ts';
import {
  type IssueHarness,
  pipelineIdFor,
  REPO,
  type Step,
  startIssueHarness,
  submitAs,
} from './issue-harness.ts';

/**
 * The issue pipeline's build judged per test, in the sandbox: `demo/webshop`'s test script
 * (`tsx --test`) writes a JUnit report, its build declares it as a CodeBuild report group, and
 * the judge reads the failing tests through the emulated CodeBuild's report API. The base
 * commit has one red test (the planted bug); a change that keeps it red and adds a red test of
 * its own is not excused by the base's red one, and the writer is told which test is new.
 */

let h: IssueHarness;
beforeAll(async () => {
  h = await startIssueHarness({}, { buildMemo: true });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
});

const BUG_LINE = '  const vat = vatFor(subtotal, options.region);';
const FIXED_LINE = '  const vat = vatFor(net, options.region);';
const BASE_RED = 'charges VAT on the discounted amount, not on the subtotal before the discount';
const NEW_TEST = 'test/rounding.test.ts';
const NEW_RED = 'rounds half a cent up';

const testFile = (expected: number) =>
  `import assert from 'node:assert/strict';\nimport { it } from 'node:test';\n\nit('${NEW_RED}', () => {\n  assert.equal(Math.round(0.5), ${expected});\n});\n`;

/** The writer's turn: each file written (its result checked), then the submission. */
const writes = (
  files: { path: string; content?: string; diff?: string }[],
  seen?: (p: string) => void,
): Step[] => [
  ...files.map(
    (file, i): Step =>
      (request) => {
        if (i === 0) seen?.(JSON.stringify(request.body.messages));
        else {
          const [result] = lastToolResults(request.body);
          expect(result ? toolResultText(result) : '').toContain('Committed');
        }
        return toolUse('write_file', file);
      },
  ),
  (request) => {
    const [result] = lastToolResults(request.body);
    expect(result ? toolResultText(result) : '').toContain('Committed');
    return submitAs('submit_changes', {
      changes: files.map((f) => ({ file: f.path, description: 'change' })),
      test_written: true,
      test_file: NEW_TEST,
      summary: 'Rounding and VAT.',
    });
  },
];

describe('the build judged per test', () => {
  it('does not excuse a new red test because another test is red on the base commit', async () => {
    const issue = await h.openIssue('Rounding of half cents', 'Half a cent should round up.');
    const id = pipelineIdFor(issue);
    let second = '';
    h.script(id, [
      submitAs('submit_triage', {
        type: 'BUG_FIX',
        scope: 'SMALL',
        complexity: 'simple',
        should_proceed: true,
      }),
      submitAs('submit_analysis', {
        brief: 'Round half a cent up; VAT on net.',
        files: [{ path: DEMO_BUG.file, purpose: 'totals', action: 'modify' }],
        patterns: [],
        test_requirement: { required: true, type: 'unit', location: NEW_TEST, description: 'half a cent' },
        must_do: ['round half up'],
        must_not_do: [],
      }),
      // Attempt 1: a red test of its own, and the base's red test left red.
      ...writes([{ path: NEW_TEST, content: testFile(2) }]),
      // Attempt 2: both green.
      ...writes(
        [
          { path: NEW_TEST, content: testFile(1) },
          {
            path: DEMO_BUG.file,
            diff: `--- a/${DEMO_BUG.file}\n+++ b/${DEMO_BUG.file}\n@@ -${DEMO_BUG.line},1 +${DEMO_BUG.line},1 @@\n-${BUG_LINE}\n+${FIXED_LINE}\n`,
          },
        ],
        (prompt) => {
          second = prompt;
        },
      ),
      () => toolUse('get_diff', {}),
      submitAs('submit_review', { verdict: 'APPROVED', findings: { good: ['ok'], issues: [] } }),
    ]);
    const state = await h.waitFor(
      () => h.documents.load(id),
      (d) => d.pipeline.status !== 'in_progress',
      'the end',
      300,
    );
    expect(state.pipeline.status).toBe('completed');
    expect(state.pipeline.attempt).toBe(2);
    // The writer was sent back for its own red test, named; the base's red test was not blamed.
    expect(second).toContain('failing tests that pass on the base commit');
    expect(second).toContain(NEW_RED);
    expect(second).not.toMatch(new RegExp(`pass on the base commit:[^"]*${BASE_RED}`));

    // The base's per-test results came from CodeBuild's report API: its one red test.
    const { data: main } = await h.github.rest.repos.getBranch({ ...REPO, branch: 'main' });
    const baseline = await h.documents.baseline('demo/webshop', main.commit.sha);
    const tests = baseline?.results.checks.find((c) => c.name === 'test')?.tests;
    expect(tests?.status).toBe('read');
    if (tests?.status !== 'read') throw new Error('no per-test results of the base');
    expect(tests.failed).toHaveLength(1);
    expect(tests.failed[0]).toContain(BASE_RED);
    expect(tests.total).toBeGreaterThan(5);
  });
});
