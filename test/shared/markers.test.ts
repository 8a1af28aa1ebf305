import { describe, expect, it } from 'vitest';
import { withoutMarkers } from '../../lambdas/shared/markers.ts';

describe('internal markers', () => {
  it('are taken from the start of every line, and nothing else', () => {
    expect(withoutMarkers('[offline demo model] src/checkout.ts:44 now passes `net`')).toBe(
      'src/checkout.ts:44 now passes `net`',
    );
    expect(withoutMarkers('a [note] in the middle\n[runtime] next')).toBe('a [note] in the middle\nnext');
    expect(withoutMarkers('[A link](x) stays')).toBe('[A link](x) stays');
  });
});
