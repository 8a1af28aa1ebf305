/**
 * Time in test fixtures. A fixture never carries a date near the present as a literal: such a
 * date works on the day it was written and expires when the code under test compares it with
 * its own clock (a conversation "created" on a fixed day reaches its 7-day limit a week later).
 * test/layout/fixture-dates.test.ts refuses them.
 *
 * - When the code under test reads the real clock, fixtures are relative to it: `isoAgo(HOUR)`.
 *   The suite then passes on any date, and with the whole clock moved (docs/testing.md).
 * - When a test hands the code its clock (`now`, `clock.now()`, `ManualClock`), it pins it at an
 *   instant far from the present: the fixtures here use 2015, whose calendar (weekdays, month
 *   lengths) is the same as 2026's, so the same instant is the same weekday in every message.
 * - A file that fixes the process's own clock (`vi.setSystemTime`) may use any date.
 */

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The instant `ms` before the real clock's now (or `now`), as an ISO string. */
export function isoAgo(ms: number, now: number = Date.now()): string {
  return new Date(now - ms).toISOString();
}

/** The real clock's now as an ISO string. */
export function isoNow(): string {
  return new Date().toISOString();
}
