import { describe, expect, it } from 'vitest';
import { withoutMarkers } from '../../lambdas/shared/markers.ts';
import { pullRequestTitle } from '../../lambdas/workflows/bug-investigation/fix/pull-request.ts';

describe('internal markers', () => {
  it('are taken from the start of every line, and nothing else', () => {
    expect(withoutMarkers('[offline demo model] src/checkout.ts:44 now passes `net`')).toBe(
      'src/checkout.ts:44 now passes `net`',
    );
    expect(withoutMarkers('a [note] in the middle\n[runtime] next')).toBe('a [note] in the middle\nnext');
    expect(withoutMarkers('[A link](x) stays')).toBe('[A link](x) stays');
  });

  it("stay out of a fix's pull request title", () => {
    const title = pullRequestTitle({
      findings: { fix: { description: '[offline demo model] src/checkout.ts:44 now passes `net`' } },
      fixSummary: 'unused',
    } as Parameters<typeof pullRequestTitle>[0]);
    expect(title).toBe('Fix: src/checkout.ts:44 now passes `net`');
  });
});
