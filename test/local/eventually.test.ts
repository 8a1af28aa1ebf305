import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';

/**
 * Waits fail on no progress, never on a total: the sign of progress a caller gives for work in
 * another process (a sandbox's `GET /sandbox/activity`) may be read asynchronously.
 */
describe('eventually with a sign of progress from elsewhere', () => {
  it('fails once that sign stops moving, however often the probe is answered', async () => {
    let probes = 0;
    await expect(
      eventually(
        () => {
          probes += 1;
          return 'not yet';
        },
        () => false,
        'something that never comes',
        { stallMs: 150, intervalMs: 5, progress: async () => 7 },
      ),
    ).rejects.toThrow('no progress for 150 ms waiting for something that never comes; last seen: "not yet"');
    expect(probes).toBeGreaterThan(2);
  });

  it('keeps waiting while it moves, past the stall period', async () => {
    let work = 0;
    const started = Date.now();
    const value = await eventually(
      () => (Date.now() - started > 450 ? 'done' : 'not yet'),
      (seen) => seen === 'done',
      'the work to end',
      { stallMs: 150, intervalMs: 5, progress: async () => (work += 1) },
    );
    expect(value).toBe('done');
  });
});
