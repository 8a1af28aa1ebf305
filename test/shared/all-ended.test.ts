import { describe, expect, it } from 'vitest';
import { allEnded } from '../../lambdas/shared/all-ended.ts';

describe('allEnded', () => {
  it('gives the values in order, with plain values beside promises', async () => {
    const values = await allEnded([
      Promise.resolve(1),
      'two',
      undefined,
      new Promise((r) => setTimeout(() => r(4), 5)),
    ]);
    expect(values).toEqual([1, 'two', undefined, 4]);
  });

  it('throws the first failure only once the slower work has ended', async () => {
    let slowEnded = false;
    const slow = new Promise<string>((resolve) =>
      setTimeout(() => {
        slowEnded = true;
        resolve('slow');
      }, 20),
    );
    const caught = await allEnded([
      Promise.reject(new Error('first')),
      slow,
      Promise.reject(new Error('second')),
    ]).catch((error: unknown) => ({ error, slowEnded }));
    expect(caught).toEqual({ error: new Error('first'), slowEnded: true });
  });
});
