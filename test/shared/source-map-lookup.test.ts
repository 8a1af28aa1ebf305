import { SourceMap } from 'node:module';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { SourceMapLookup } from '../../lambdas/shared/source-map-lookup.ts';

/** A minified bundle of a real module and its map, as esbuild writes them. */
function bundled(): { code: string; map: { sources: string[]; names: string[]; mappings: string } } {
  const result = buildSync({
    entryPoints: ['lambdas/redaction/pii.ts'],
    bundle: true,
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    format: 'esm',
    platform: 'node',
    write: false,
    outdir: 'out',
    logLevel: 'error',
  });
  const file = (suffix: string) =>
    result.outputFiles.find((output) => output.path.endsWith(suffix))?.text ?? '';
  return { code: file('.js'), map: JSON.parse(file('.js.map')) };
}

describe('SourceMapLookup', () => {
  it('finds what Node’s SourceMap finds, at positions spread over every line of a minified bundle', () => {
    const { code, map } = bundled();
    const ours = new SourceMapLookup(map);
    const node = new SourceMap({ version: 3, file: 'out.js', sourceRoot: '', sourcesContent: [], ...map });
    const lines = code.split('\n');
    const expected: unknown[] = [];
    const found: unknown[] = [];
    // Up to the last mapped line: past it Node reads a name out of the end of the text. Every
    // 61st column (a prime, so the steps fall at every place of the code's repeating shapes) and
    // each line's end: a lookup decodes its line from the start, so every 7th column of the
    // bundle's 56 KB lines cost seconds, for no case these 2,500 positions miss.
    for (let line = 0; line < map.mappings.split(';').length - 1; line += 1) {
      const length = lines[line]?.length ?? 0;
      for (const column of [
        ...Array.from({ length: Math.floor(length / 61) + 1 }, (_, i) => i * 61),
        length,
      ]) {
        const {
          generatedLine: _l,
          generatedColumn: _c,
          ...position
        } = node.findEntry(line, column) as object & Record<string, unknown>;
        expected.push(position);
        found.push(ours.findEntry(line, column));
      }
    }
    expect(found.length).toBeGreaterThan(1000);
    expect(found).toEqual(expected);
  });

  it('maps generated code with no source to nothing, and a position past the end to the last mapping', () => {
    // Line 0: column 0 maps to a.ts 1:1 named `f`, column 4 has no source. Line 1: column 2 maps to b.ts 3:5.
    const lookup = new SourceMapLookup({ sources: ['a.ts', 'b.ts'], names: ['f'], mappings: 'AAAAA,I;ECEI' });

    expect(lookup.findEntry(0, 2)).toEqual({
      originalSource: 'a.ts',
      originalLine: 0,
      originalColumn: 0,
      name: 'f',
    });
    expect(lookup.findEntry(0, 9)).toEqual({});
    expect(lookup.findEntry(1, 0)).toEqual({});
    expect(lookup.findEntry(1, 3)).toEqual({ originalSource: 'b.ts', originalLine: 2, originalColumn: 4 });
    expect(lookup.findEntry(7, 0)).toEqual({ originalSource: 'b.ts', originalLine: 2, originalColumn: 4 });
  });

  it('refuses what is not a map, and mappings it cannot read', () => {
    expect(() => new SourceMapLookup({ sources: [] } as never)).toThrow(/not a source map/);
    expect(() => new SourceMapLookup({ sources: ['a.ts'], mappings: 'AA!A' }).findEntry(0, 0)).toThrow(
      /not a source map's mappings/,
    );
  });
});
