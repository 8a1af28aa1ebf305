import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidPatternError } from '../../lambdas/tools/code/errors.ts';
import { searchFiles } from '../../lambdas/tools/code/search.ts';
import { fakeValues } from '../redaction/fake-values.ts';

/** What a search is given besides the files. */
type SearchOptions = Parameters<typeof searchFiles>[1];

const dir = mkdtempSync(join(tmpdir(), 'code-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, content: string | Uint8Array) {
  const absolutePath = join(dir, path.replaceAll('/', '__'));
  writeFileSync(absolutePath, content);
  return { path, absolutePath };
}

const cart = file(
  'src/cart.ts',
  [
    'export function total(items) {',
    '  let sum = 0;',
    '  for (const item of items) sum += item.price;',
    '  return sum;',
    '}',
  ].join('\n'),
);
const readme = file('README.md', '# Webshop\nThe cart sums prices.\n');
const image = file('logo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0x73, 0x75, 0x6d]));
const latin1 = file('legacy.txt', new Uint8Array([0x73, 0x75, 0x6d, 0xe9, 0x0a]));
const files = [readme, cart, image, latin1];

const options: SearchOptions = {
  pattern: 'sum',
  regex: false,
  caseSensitive: true,
  contextLines: 0,
  maxMatches: 50,
  maxOutputChars: 16_000,
  maxLineChars: 300,
  maxBytes: 1_048_576,
};

describe('searchFiles', () => {
  it('prints file:line:text for each matching line of a literal search, skipping binary files', async () => {
    const output = await searchFiles(files, options);
    expect(output.split('\n')).toEqual([
      'README.md:2:The cart sums prices.',
      '--',
      'src/cart.ts:2:  let sum = 0;',
      'src/cart.ts:3:  for (const item of items) sum += item.price;',
      'src/cart.ts:4:  return sum;',
      '[4 of 4 matching lines shown, 2 file(s) with matches, 4 searched]',
    ]);
  });

  it('prints context lines with a dash and merges overlapping context', async () => {
    const output = await searchFiles([cart], { ...options, pattern: 'return', contextLines: 1 });
    expect(output.split('\n').slice(0, 3)).toEqual([
      'src/cart.ts-3-  for (const item of items) sum += item.price;',
      'src/cart.ts:4:  return sum;',
      'src/cart.ts-5-}',
    ]);
  });

  it('takes a literal pattern literally, regular expression characters included', async () => {
    const code = file('code.ts', 'a = item.price;\nb = itemXprice;\nc = (x) => x * 2;\n');
    expect(await searchFiles([code], { ...options, pattern: 'item.price' })).toContain(
      'code.ts:1:a = item.price;',
    );
    expect(await searchFiles([code], { ...options, pattern: 'item.price' })).not.toContain('itemXprice');
    expect(await searchFiles([code], { ...options, pattern: '(x) => x *' })).toContain('code.ts:3:');
  });

  it('matches a literal case-insensitively when asked', async () => {
    expect(await searchFiles(files, { ...options, pattern: 'WEBSHOP', caseSensitive: false })).toContain(
      'README.md:1:# Webshop',
    );
  });

  it('matches a regular expression, case-insensitively when asked', async () => {
    const output = await searchFiles(files, {
      ...options,
      pattern: '^#\\s*WEBSHOP$',
      regex: true,
      caseSensitive: false,
    });
    expect(output).toContain('README.md:1:# Webshop');
  });

  it('stops at the match cap and says so', async () => {
    const output = await searchFiles(files, { ...options, maxMatches: 2 });
    expect(output).toContain('[2 of 2+ matching lines shown');
    expect(output).toContain('Output capped at 2 matches');
    expect(output).not.toContain('return sum');
  });

  it('stops the regular expression search at the match cap too', async () => {
    const output = await searchFiles(files, { ...options, regex: true, pattern: 's.m', maxMatches: 1 });
    expect(output.split('\n')[0]).toBe('README.md:2:The cart sums prices.');
    expect(output).toContain('Output capped at 1 matches');
  });

  it('caps the output in characters', async () => {
    const many = file('many.txt', Array.from({ length: 2_000 }, (_, i) => `sum ${i}`).join('\n'));
    const output = await searchFiles([many], { ...options, maxMatches: 2_000, maxOutputChars: 1_000 });
    expect(output.length).toBeLessThanOrEqual(1_000);
    expect(output).toMatch(/Output capped: narrow the search/);
  });

  it('clips long lines', async () => {
    const long = file('min.js', `var sum=${'1+'.repeat(1_000)}1;`);
    const output = await searchFiles([long], { ...options, maxLineChars: 50 });
    expect(output).toMatch(/\[\.\.\. \d+ more characters\]/);
  });

  it('clips a long line before a token that straddles the clip, leaving no part of it', async () => {
    // Cut at the limit, the line kept the token's first 15 characters, which no rule matches.
    const token = fakeValues().githubToken;
    const head = `const sum = 1; // ${'x'.repeat(265)} `;
    const line = `${head}${token} rotated`;
    const output = await searchFiles([file('token.ts', line)], options);
    expect(output.split('\n')[0]).toBe(
      `token.ts:1:${head} [... ${line.length - head.length} more characters]`,
    );
  });

  it('says so when nothing matches', async () => {
    expect(await searchFiles(files, { ...options, pattern: 'discount' })).toBe(
      'No matches for literal "discount" in 4 file(s).',
    );
  });

  it('refuses a regular expression that does not compile', async () => {
    await expect(searchFiles(files, { ...options, regex: true, pattern: '(unclosed' })).rejects.toThrow(
      InvalidPatternError,
    );
  });

  it('says in one sentence that RE2 has no backreferences or lookaround, and names the construct', async () => {
    for (const pattern of ['(sum)\\s+\\1', 'sum(?= \\+=)', '(?<!let )sum']) {
      const refusal = searchFiles(files, { ...options, regex: true, pattern });
      await expect(refusal).rejects.toThrow(InvalidPatternError);
      await expect(refusal).rejects.toThrow(
        /Backreferences \(\\1\) and lookaround .* cannot be searched for/,
      );
    }
    // A plain syntax error is told as such, without the sentence about RE2's limits.
    await expect(searchFiles(files, { ...options, regex: true, pattern: '[sum' })).rejects.toThrow(
      /^the regular expression "\[sum" does not compile: [^.]*missing closing \]: `\[sum`\.$/,
    );
  });

  it('runs a pattern that backtracks exponentially in JavaScript in linear time on RE2', async () => {
    // (a+)+$ against 50,000 a's and a b: a backtracking engine tries 2^50000 splits. RE2 answers,
    // and the answer is no: nothing here depends on how long it takes.
    const evil = file('evil.txt', `${'a'.repeat(50_000)}b\n`);
    expect(await searchFiles([evil, readme], { ...options, regex: true, pattern: '(a+)+$' })).toBe(
      'No matches for regular expression "(a+)+$" in 2 file(s).',
    );
    expect(await searchFiles([evil], { ...options, regex: true, pattern: '(a+)+b$' })).toMatch(
      /^evil\.txt:1:a{20}/,
    );
  });

  it('matches as JavaScript does: case-insensitive, anchored per line, word boundaries, escaped parentheses', async () => {
    const vat = file('src/vat.ts', 'export const rate = vatFor(order);\nconst VATFOR = 1;\n');
    const search = (pattern: string, caseSensitive = true) =>
      searchFiles([vat], { ...options, regex: true, pattern, caseSensitive });
    expect(await search('vatFor\\(')).toMatch(/^src\/vat\.ts:1:/);
    expect((await search('vatfor', false)).split('\n')).toHaveLength(3);
    expect(await search('^const')).toMatch(/^src\/vat\.ts:2:const VATFOR = 1;$/m);
    expect(await search('\\bVATFOR\\b')).toMatch(/^src\/vat\.ts:2:/);
    expect(await search('order\\);$')).toMatch(/^src\/vat\.ts:1:/);
  });

  it('reads at most its byte budget and names the files it left unsearched', async () => {
    const big = file('big.txt', `${'x'.repeat(600)}\nsum\n`);
    const output = await searchFiles([cart, big, readme], { ...options, maxBytes: 700 });
    expect(output.split('\n')).toEqual([
      'src/cart.ts:2:  let sum = 0;',
      'src/cart.ts:3:  for (const item of items) sum += item.price;',
      'src/cart.ts:4:  return sum;',
      '[3 of 3 matching lines shown, 1 file(s) with matches, 1 searched]',
      '[2 file(s) not searched: a search reads at most 700 B of text; narrow it with path_glob]',
    ]);
  });
});

describe('the context around matches', () => {
  it('merges ranges that touch and keeps them inside the file', async () => {
    // Twelve lines, matches on lines 1, 4 and 11 (0, 3 and 10 counted from 0), two lines of context.
    const lines = Array.from({ length: 12 }, (_, i) => ([0, 3, 10].includes(i) ? `hit ${i}` : `line ${i}`));
    const twelve = file('twelve.txt', lines.join('\n'));
    const output = await searchFiles([twelve], { ...options, pattern: 'hit', contextLines: 2 });
    expect(output.split('\n')).toEqual([
      'twelve.txt:1:hit 0',
      'twelve.txt-2-line 1',
      'twelve.txt-3-line 2',
      'twelve.txt:4:hit 3',
      'twelve.txt-5-line 4',
      'twelve.txt-6-line 5',
      '--',
      'twelve.txt-9-line 8',
      'twelve.txt-10-line 9',
      'twelve.txt:11:hit 10',
      'twelve.txt-12-line 11',
      '[3 of 3 matching lines shown, 1 file(s) with matches, 1 searched]',
    ]);
  });
});
