import { describe, expect, it } from 'vitest';
import { taskTitle } from '../../lambdas/progress/titles.ts';

/** The most characters of a step's title (stated here, not imported: the value is what this test checks). */
const MAX_TITLE_CHARS = 120;

describe('task titles from tool calls', () => {
  it.each([
    ['search_code', { pattern: 'total' }, 'Searching code for "total"'],
    ['search_code', { pattern: 'net', path_glob: 'src/**' }, 'Searching code for "net" in src/**'],
    ['read_file', { path: 'src/cart.ts', start_line: 40, end_line: 80 }, 'Reading src/cart.ts:40-80'],
    ['read_file', { path: 'src/cart.ts' }, 'Reading src/cart.ts'],
    ['read_file', { path: 'src/cart.ts', start_line: 40 }, 'Reading src/cart.ts:40-end'],
    ['list_files', {}, 'Listing the repository'],
    ['write_file', { path: 'src/cart.ts', content: 'x' }, 'Editing src/cart.ts'],
    ['get_diff', {}, 'Reviewing the changes'],
    [
      'query_logs',
      { service: 'payment-api', since: '2015-11-27T20:00:00Z', until: '2015-11-27T20:15:00Z' },
      'Querying payment-api logs 20:00-20:15',
    ],
    [
      'query_metrics',
      { service: 'payment-api', lastMinutes: 30 },
      'Reading payment-api metrics (last 30 min)',
    ],
    ['recent_deployments', {}, 'Listing deployments'],
    ['service_map', { service: 'checkout' }, 'Reading the service map around checkout'],
    ['get_bug_conversations', { bug_id: 'c-1' }, 'Reading the conversation so far'],
    ['lookup_weather', { city: 'Oslo' }, 'Running lookup weather'],
  ])('titles %s %j as %s', (tool, args, title) => {
    expect(taskTitle(tool, args)).toBe(title);
  });

  it('shows a long regular expression as "a pattern", a short one quoted', () => {
    expect(
      taskTitle('search_code', { pattern: '(total|subtotal)\\s*[=:]\\s*\\w+\\.reduce\\(', regex: true }),
    ).toBe('Searching code for a pattern');
    expect(taskTitle('search_code', { pattern: 'total\\s*=', regex: true })).toBe(
      'Searching code for "total\\s*="',
    );
  });

  it('survives arguments that are not an object', () => {
    expect(taskTitle('read_file', 'src/cart.ts')).toBe('Reading a file');
  });

  it('keeps a title to one line of at most the limit', () => {
    const title = taskTitle('search_code', {
      pattern: `a\nb ${'x'.repeat(400)}`,
      path_glob: 'y'.repeat(200),
    });
    expect(title.length).toBeLessThanOrEqual(MAX_TITLE_CHARS);
    expect(title).not.toContain('\n');
    expect(title.endsWith('…')).toBe(true);
  });
});
