import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commitDate, nearDates, nearDatesIn } from './fixture-dates.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('dates in tests', () => {
  it('has no date literal within a year of the commit in a file that does not pin the clock', () => {
    const near = nearDatesIn(REPO, commitDate(REPO)).map((hit) => `${hit.file}:${hit.line} ${hit.date}`);
    expect(near).toEqual([]);
  });

  it('finds a date near the reference alone or in a timestamp, and leaves far dates and other numbers', () => {
    const reference = new Date(Date.UTC(2031, 5, 15));
    const source = [
      "createdAt: '2031-06-01T12:00:00Z',", // two weeks before
      "day: '2030-06-16',", // 364 days before
      "old: '2020-06-15T00:00:00Z',", // eleven years before
      "version: '1.2031-06-01',", // part of another token
      "notADate: '2031-02-30',", // no such day
      "receipt: 'INV-2031-13-01',", // no such month
    ].join('\n');
    expect(nearDates(source, reference)).toEqual([
      { line: 1, date: '2031-06-01' },
      { line: 2, date: '2030-06-16' },
    ]);
  });

  it('allows any date in a file that fixes the clock itself', () => {
    const reference = new Date(Date.UTC(2031, 5, 15));
    expect(nearDates("vi.setSystemTime(new Date('2031-06-01T00:00:00Z'));", reference)).toEqual([]);
  });
});
