import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskOutcome } from '../../lambdas/progress/outcomes.ts';
import { searchFiles } from '../../lambdas/tools/code/search.ts';

/** The most characters of a step's outcome line (stated here, not imported: the value is what this test checks). */
const MAX_OUTCOME_CHARS = 200;

/**
 * Timeline outcomes are written for people: a short line built from the tool's answer, never
 * the answer's header for the model (a ref in brackets, an evidence id to cite, JSON lines).
 */

const REF = '[main at 450bc6ab0f8e]';

describe('outcomes of the code tools', () => {
  let dir: string;
  const files: { path: string; absolutePath: string }[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'outcomes-'));
    for (const [path, text] of [
      ['src/cart.ts', 'const total = 1;\nconst net = total;\n'],
      ['src/tax.ts', 'export const total = 2;\n'],
      ['README.md', 'nothing here\n'],
    ] as const) {
      const absolutePath = join(dir, path.replace('/', '-'));
      await writeFile(absolutePath, text);
      files.push({ path, absolutePath });
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const search = (pattern: string) =>
    searchFiles(files, {
      pattern,
      regex: false,
      caseSensitive: true,
      contextLines: 1,
      maxMatches: 50,
      maxOutputChars: 10_000,
      maxLineChars: 200,
      maxBytes: 1_000_000,
    });

  it('counts a search by matches and files, from what the search answered', async () => {
    const output = `${REF}\n${await search('total')}`;
    expect(taskOutcome('search_code', { pattern: 'total' }, output, false)).toBe('3 matches in 2 files');
  });

  it('says a search found nothing', async () => {
    const output = `${REF}\n${await search('discount')}`;
    expect(taskOutcome('search_code', { pattern: 'discount' }, output, false)).toBe('no matches in 3 files');
  });

  it('names the lines a read covered, not the ref header', () => {
    const output = `${REF} src/cart.ts: 212 lines, 6.1 KB\n40\tconst total = 1;`;
    expect(
      taskOutcome('read_file', { path: 'src/cart.ts', start_line: 40, end_line: 80 }, output, false),
    ).toBe('src/cart.ts lines 40-80');
    expect(taskOutcome('read_file', { path: 'src/cart.ts' }, output, false)).toBe(
      'src/cart.ts, all 212 lines',
    );
  });

  it('counts listed files, written lines and the diff', () => {
    expect(taskOutcome('list_files', {}, `${REF} 1469 path(s)\nsrc/a.ts  (1 KB)`, false)).toBe('1,469 files');
    expect(
      taskOutcome(
        'write_file',
        { path: 'src/cart.ts' },
        'Committed 0123456789ab on fix/c-1: wrote src/cart.ts (212 lines, 6.1 KB).',
        false,
      ),
    ).toBe('wrote src/cart.ts (212 lines)');
    expect(
      taskOutcome(
        'get_diff',
        {},
        'fix/c-1 is 2 commit(s) ahead of main and 0 behind; 3 file(s) changed.\ncommit 0123 Fix',
        false,
      ),
    ).toBe('3 files changed in 2 commits');
  });

  it('counts the messages of the conversation instead of showing their JSON', () => {
    const output = [
      '--- 2001-11-27 ---',
      '[10:02:01] {"from":"U_REPORTER","role":"reporter","text":"the total is wrong"}',
      '[10:04:30] {"from":"U_BOT","role":"bot","text":"Which page?"}',
    ].join('\n');
    const outcome = taskOutcome('get_bug_conversations', {}, output, false);
    expect(outcome).toBe('2 messages');
  });
});

describe('outcomes of the telemetry tools', () => {
  const evidence =
    'Evidence ev-3 (query_logs, cloudwatch-logs:/ecs/payment-api, 2001-12-01T20:00:00.000Z .. 2001-12-01T20:15:00.000Z; scope round-1:h2). Cite it as ev-3. Queries used in scope round-1:h2: 1 of 5.';

  it('sums up logs as lines, error patterns and when the first began', () => {
    const output = [
      evidence,
      '',
      '1469 events from /ecs/payment-api, 2001-12-01T20:00:00.000Z .. 2001-12-01T20:15:00.000Z.',
      '',
      '1469 log lines, 12 templates, services: payment-api, from 2001-12-01T20:00:00.000Z to 2001-12-01T20:15:00.000Z',
      '',
      'Error patterns (count, level, first..last, services):',
      '- 310x (20.67/min) ERROR 2001-12-01T20:05:06.151Z..2001-12-01T20:14:00.000Z [payment-api] pool exhausted <*>',
      '  e.g. pool exhausted after 30s',
      '- 12x (0.8/min) ERROR 2001-12-01T20:03:00.000Z..2001-12-01T20:09:00.000Z [payment-api] timeout <*>',
      '- 2x (0.13/min) WARN 2001-12-01T20:11:00.000Z..2001-12-01T20:12:00.000Z [payment-api] retry <*>',
      '',
      'Templates (count, rate over the whole range):',
      '- 1000x (66.67/min) GET <*>',
    ].join('\n');
    const outcome = taskOutcome('query_logs', { service: 'payment-api' }, output, false);
    expect(outcome).toBe('1,469 lines, 3 error patterns, first at 20:03');
  });

  it('says a window without logs had none', () => {
    const output = `${evidence}\n\n0 events from /ecs/payment-api, 2001-12-01T20:00:00.000Z .. 2001-12-01T20:15:00.000Z.`;
    expect(taskOutcome('query_logs', {}, output, false)).toBe('no log lines');
  });

  it("gives each metric's peak with its clock time", () => {
    const output = [
      evidence,
      '',
      'payment-api metrics (cloudwatch, p99 per 60s), 2001-12-01T20:00:00.000Z .. 2001-12-01T20:15:00.000Z.',
      '',
      'Latency: 15 points, min 80, mean 310, max 2400 at 2001-12-01T20:06:00.000Z.',
      'Series: 20:00 80, 20:01 90',
    ].join('\n');
    expect(taskOutcome('query_metrics', {}, output, false)).toBe('Latency max 2400 at 20:06');
  });

  it('never shows the evidence header, its citation note or the query budget', () => {
    const output = `${evidence}\n\nSomething the tool said`;
    const outcome = taskOutcome('a_new_tool', {}, output, false);
    expect(outcome).toBe('Something the tool said');
    expect(outcome).not.toMatch(/ev-3|Cite it|Queries used|_/);
  });
});

describe('any outcome', () => {
  it('is a failure’s first line, or "failed" when it says nothing', () => {
    expect(taskOutcome('read_file', {}, 'read_file failed: FileNotFoundError: src/x.ts\nmore', true)).toBe(
      'read_file failed: FileNotFoundError: src/x.ts',
    );
    expect(taskOutcome('read_file', {}, '  \n', true)).toBe('failed');
  });

  it('falls back to the first line meant for people, skipping separators and JSON', () => {
    expect(taskOutcome('a_tool', {}, '--- 2001-11-27 ---\n{"a":1}\n_12 events in 3 templates_', false)).toBe(
      '12 events in 3 templates',
    );
  });

  it('is one line of at most the limit', () => {
    const outcome = taskOutcome('a_tool', {}, `${'word '.repeat(200)}\nmore`, false);
    expect(outcome.length).toBeLessThanOrEqual(MAX_OUTCOME_CHARS);
    expect(outcome).not.toContain('\n');
  });
});
