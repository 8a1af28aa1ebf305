import { describe, expect, it } from 'vitest';
import { fileSize, previewText } from '../../console/src/file-preview.ts';
import { fitScale } from '../../console/src/fit-scale.ts';

/** A file's card shows its first 12 lines (stated here, not imported: the number is what this test checks). */
const PREVIEW_LINES = 12;

describe("the graph's Fit", () => {
  it('fits a 1,726 px graph in a 538 px box, with no floor on the scale', () => {
    const scale = fitScale(1_726, 538);
    expect(1_726 * scale).toBeLessThanOrEqual(538);
    expect(scale).toBeCloseTo(538 / 1_726, 6);
  });

  it('never blows a small graph up, and leaves a graph with no size as it is', () => {
    expect(fitScale(300, 538)).toBe(1);
    expect(fitScale(0, 538)).toBe(1);
    expect(fitScale(Number.NaN, 538)).toBe(1);
  });
});

describe('a shared file in a message', () => {
  it('previews the first lines and says when there is more', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const shown = previewText({ preview: lines.join('\n'), truncated: false });
    expect(shown.split('\n')).toHaveLength(PREVIEW_LINES + 1);
    expect(shown.startsWith('line 1\nline 2')).toBe(true);
    expect(shown.endsWith('…')).toBe(true);
    expect(previewText({ preview: '# PRD\n\nShort.', truncated: false })).toBe('# PRD\n\nShort.');
    expect(previewText({ preview: '# PRD', truncated: true })).toBe('# PRD\n…');
  });

  it('gives sizes in bytes and kilobytes', () => {
    expect(fileSize(1)).toBe('1 byte');
    expect(fileSize(900)).toBe('900 bytes');
    expect(fileSize(2_560)).toBe('2.5 KB');
  });
});
