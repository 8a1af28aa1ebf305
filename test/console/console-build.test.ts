import { describe, expect, it } from 'vitest';
import { consoleDigest } from './console-build.ts';

describe("the browser tests' console build record", () => {
  it('digests what the bundle is made of, and says when an input is gone', () => {
    const alone = consoleDigest([]);
    const withMoney = consoleDigest(['lambdas/shared/money.ts']);
    expect(alone).toMatch(/^[0-9a-f]{64}$/);
    expect(withMoney).toMatch(/^[0-9a-f]{64}$/);
    // An input outside console/ counts: an edit there makes the next file rebuild.
    expect(withMoney).not.toBe(alone);
    expect(consoleDigest(['lambdas/shared/money.ts'])).toBe(withMoney);
    // A recorded input that no longer exists: no digest, so the bundle is rebuilt.
    expect(consoleDigest(['lambdas/shared/no-such-module.ts'])).toBeUndefined();
  });
});
