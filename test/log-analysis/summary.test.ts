import { describe, expect, it } from 'vitest';
import { analyzeLogs } from '../../lambdas/log-analysis/index.ts';
import { estimateTokens } from './estimate-tokens.ts';

const T0 = Date.parse('2024-05-01T10:00:00Z');

function incident() {
  const events = [];
  for (let i = 0; i < 2000; i++) {
    events.push({
      timestamp: T0 + i * 1500,
      logStreamName: 'api',
      message: `INFO GET /orders/${i} 200 in ${i % 97} ms`,
    });
  }
  for (let i = 0; i < 40; i++) {
    events.push({
      timestamp: T0 + 2900_000 + i * 1000,
      logStreamName: 'db',
      message: JSON.stringify({
        level: 'error',
        msg: `pool exhausted after ${30 + i} s`,
        trace_id: `t${i % 4}`,
      }),
    });
  }
  return events;
}

describe('analyzeLogs and its summary', () => {
  it('stays within the token budget however many lines came in', () => {
    for (const tokenBudget of [5, 200, 800]) {
      const { summary } = analyzeLogs(incident(), { summary: { tokenBudget } });
      expect(estimateTokens(summary)).toBeLessThanOrEqual(tokenBudget);
    }
  });

  it('leads with the counts and the anomalies, and names the error template', () => {
    const analysis = analyzeLogs(incident(), { summary: { tokenBudget: 800 } });
    expect(analysis.lineCount).toBe(2040);
    expect(analysis.summary).toMatch(/^2040 log lines, 2 templates, services: api, db/);
    expect(analysis.summary.indexOf('Anomalies:')).toBeLessThan(
      analysis.summary.indexOf('Templates (count, rate over the whole range):'),
    );
    expect(analysis.summary).toContain('new_error');
    expect(analysis.summary).toContain('40x (0.8/min) error');
    expect(analysis.errorPatterns[0]).toMatchObject({
      pattern: 'pool exhausted after <*> s',
      count: 40,
      affectedServices: ['db'],
    });
    expect(analysis.correlated).toHaveLength(4);
    // The path and the status are values with only a space between: one variable part.
    expect(analysis.summary).toMatch(
      /- 2000x \(40\.02\/min\) GET <\*> in <\*> ms\n {2}e\.g\. GET \/orders\/0 200 in 0 ms/,
    );
  });

  it('says how much it left out when the budget is small', () => {
    const { summary } = analyzeLogs(incident(), { summary: { tokenBudget: 120 } });
    expect(summary).toMatch(/more left out|^2040 log lines[^\n]*$/);
  });
});
