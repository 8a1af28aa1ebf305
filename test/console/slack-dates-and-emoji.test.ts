import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emojiFor } from '../../console/src/emoji.ts';
import { type Inline, parseMrkdwn } from '../../console/src/mrkdwn.ts';
import { formatSlackDate } from '../../console/src/slack-date.ts';
import { slackTime } from '../../lambdas/kernel/decision-text.ts';

/** A moment far in the past: 2001-09-09 01:46:40 UTC. */
const SECONDS = 1_000_000_000;
const UTC = { timeZone: 'UTC' };

/** What `parseMrkdwn` reads from text of one plain line: that line, with these pieces. */
const oneLine = (children: Inline[]) => [{ type: 'lines', lines: [{ type: 'line', children }] }];

describe("Slack's date tokens in the console", () => {
  it('reads <!date^...> as a date with its format and fallback, not as a special mention', () => {
    expect(parseMrkdwn(`at <!date^${SECONDS}^{date_short_pretty} {time}|2001-09-09 01:46 UTC>.`)).toEqual(
      oneLine([
        { type: 'text', text: 'at ' },
        {
          type: 'date',
          seconds: SECONDS,
          format: '{date_short_pretty} {time}',
          fallback: '2001-09-09 01:46 UTC',
        },
        { type: 'text', text: '.' },
      ]),
    );
    expect(parseMrkdwn(`<!date^${SECONDS}^{date_num}^https://x.test/a|then>`)).toEqual(
      oneLine([
        { type: 'date', seconds: SECONDS, format: '{date_num}', fallback: 'then', link: 'https://x.test/a' },
      ]),
    );
  });

  it('writes every token as Slack does, in the reader\u2019s zone', () => {
    const far = { ...UTC, now: Date.UTC(2002, 0, 1) };
    expect(formatSlackDate(SECONDS, '{date_num} {time_secs}', far)).toBe('2001-09-09 1:46:40 AM');
    expect(formatSlackDate(SECONDS, '{date}', far)).toBe('September 9th, 2001');
    expect(formatSlackDate(SECONDS, '{date_short} at {time}', far)).toBe('Sep 9, 2001 at 1:46 AM');
    expect(formatSlackDate(SECONDS, '{date_long}', far)).toBe('Sunday, September 9th, 2001');
    expect(formatSlackDate(SECONDS, '{date_short_pretty}', far)).toBe('Sep 9, 2001');
    expect(
      formatSlackDate(SECONDS, '{date_num} {time}', { timeZone: 'America/New_York', now: far.now }),
    ).toBe('2001-09-08 9:46 PM');
    expect(formatSlackDate(SECONDS, '{unknown}', far)).toBe('{unknown}');
  });

  it('says Today, Yesterday and Tomorrow and how long ago, against the reader\u2019s now', () => {
    const now = SECONDS * 1000 + 3 * 3600_000;
    expect(formatSlackDate(SECONDS, '{date_short_pretty} {time}', { ...UTC, now })).toBe('Today 1:46 AM');
    expect(formatSlackDate(SECONDS, '{date_pretty}', { ...UTC, now: now + 86_400_000 })).toBe('Yesterday');
    expect(formatSlackDate(SECONDS, '{date_long_pretty}', { ...UTC, now: now - 86_400_000 })).toBe(
      'Tomorrow',
    );
    expect(formatSlackDate(SECONDS, '{ago}', { ...UTC, now })).toBe('3 hours ago');
  });

  it("reads the kernel's own decision times", () => {
    expect(parseMrkdwn(slackTime(new Date(SECONDS * 1000).toISOString()))).toMatchObject(
      oneLine([{ type: 'date', seconds: SECONDS, format: '{date_short_pretty} {time}' }]),
    );
  });
});

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('emoji shortcodes in the console', () => {
  it('shows every shortcode the bot writes as its emoji', () => {
    const written = new Set<string>();
    for (const file of sources('lambdas')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?<=['`\s(]):([a-z][a-z0-9_]*|\+1|-1):(?=[\s'`)])/g))
        if (match[1]) written.add(match[1]);
    }
    // Pieces of an ARN (`:execution:`), not emoji.
    written.delete('execution');
    expect(written.size).toBeGreaterThan(20);
    expect(written).toContain('bust_in_silhouette');
    expect(written).toContain('moneybag');
    expect([...written].filter((name) => emojiFor(name) === undefined)).toEqual([]);
  });
});
