/**
 * `varyingFractions` on made-up lines (no benchmark log lines): a decimal keeps its point in the
 * template where the digits after it differ among the template's messages, and is one value
 * where they never do; `decimalPoint` keeps every point; off, every decimal is one value.
 */
import { describe, expect, it } from 'vitest';
import type { Heuristics } from '../../lambdas/log-analysis/heuristics.ts';
import { fractionDigits } from '../../lambdas/log-analysis/mask.ts';
import { TemplateMiner } from '../../lambdas/log-analysis/template-miner.ts';

function mine(lines: string[], heuristics: Partial<Heuristics> = {}): string[] {
  const miner = new TemplateMiner({ heuristics });
  const groups = lines.map((l) => miner.add(l));
  return lines.map((l, i) => miner.templateOf(groups[i] as number, l).template);
}

const progress = ['job 7 progress 0.25 done', 'job 8 progress 0.5 done', 'job 9 progress 0.875 done'];
const retries = ['retry 3.0 of call 12', 'retry 4.0 of call 13', 'retry 11.0 of call 14'];

describe('decimal fractions (varyingFractions)', () => {
  it('keeps the point where the digits after it differ among the messages', () => {
    expect(new Set(mine(progress))).toEqual(new Set(['job <*> progress <*>.<*> done']));
  });

  it('writes one value where the digits after the point never differ', () => {
    expect(new Set(mine(retries))).toEqual(new Set(['retry <*> of call <*>']));
    expect(mine(['load average 0.75 now'])).toEqual(['load average <*> now']);
  });

  it('keeps the point when a repeated message joins by the exact-match cache', () => {
    const lines = ['ratio 0.5 reached', 'ratio 0.5 reached', 'ratio 0.25 reached', 'ratio 0.5 reached'];
    expect(new Set(mine(lines))).toEqual(new Set(['ratio <*>.<*> reached']));
  });

  it('decides per position: a varying fraction beside a fixed one', () => {
    const lines = [
      'task 1.0 at 0.31 of stage 2',
      'task 2.0 at 0.62 of stage 3',
      'task 5.0 at 0.93 of stage 4',
    ];
    expect(new Set(mine(lines))).toEqual(new Set(['task <*> at <*>.<*> of stage <*>']));
  });

  it('keeps no point in values merged by whitespace: they are one value', () => {
    const lines = [
      'cpu load 0.75 0.50 0.25 now',
      'cpu load 1.75 0.60 0.20 now',
      'cpu load 2.05 1.10 0.90 now',
    ];
    expect(new Set(mine(lines))).toEqual(new Set(['cpu load <*> now']));
    const times = ['at Jun 17 07:07:00.123 up', 'at Jun 18 07:07:01.456 up'];
    expect(new Set(mine(times))).toEqual(new Set(['at <*>:<*>:<*> up']));
    const mixed = ['took 0.5 1.5 ms then 2.5', 'took 0.7 1.5 ms then 2.6'];
    expect(new Set(mine(mixed))).toEqual(new Set(['took <*> ms then <*>.<*>']));
  });

  it('keeps a size with its unit one value', () => {
    expect(new Set(mine(['wrote 5.2 KB', 'wrote 7.9 KB']))).toEqual(new Set(['wrote <*>']));
  });

  it('gives way to decimalPoint, which keeps every point, and is off on request', () => {
    expect(new Set(mine(retries, { decimalPoint: true }))).toEqual(new Set(['retry <*>.<*> of call <*>']));
    expect(new Set(mine(progress, { varyingFractions: false }))).toEqual(
      new Set(['job <*> progress <*> done']),
    );
  });

  it('reads the digits after each decimal point of a word', () => {
    expect(fractionDigits('0.25')).toBe('25');
    expect(fractionDigits('(1.5,12.75)')).toBe('5,75');
    expect(fractionDigits('1.4.1')).toBe('');
  });
});
