import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SenderType } from '../../lambdas/kernel/model.ts';
import { historyPage } from '../../lambdas/tools/conversation-history.ts';
import { historyTable, message, output, slackTs } from './conversation-history-support.ts';

/**
 * How get_bug_conversations pages a history too long for one answer: each page within its
 * `max_chars`, a cursor to the next, and every message on exactly one page, in Slack order.
 * What a page's lines say is in conversation-history.test.ts.
 */

const { createConversation, read } = historyTable();

describe('get_bug_conversations pages', () => {
  it('pages a long history with cursors until the end, losing and repeating nothing', async () => {
    const id = 'bug-long';
    const messages = Array.from({ length: 120 }, (_, i) =>
      message(
        id,
        slackTs(i * 60),
        i % 3 === 0 ? 'reporter' : i % 3 === 1 ? 'bot' : 'developer',
        `message ${i} ${'·'.repeat(i % 7 === 0 ? 300 : 40)}`,
      ),
    );
    await createConversation(id, messages);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const text = output(await read(id, { max_chars: 2_000, ...(cursor ? { cursor } : {}) }));
      pages += 1;
      expect(text.length).toBeLessThanOrEqual(2_000);
      const more = /\n\[more: call get_bug_conversations with cursor "([^"]+)"\]$/.exec(text);
      cursor = more?.[1];
      seen.push(...text.split('\n').filter((line) => /^\[\d\d:\d\d:\d\d\] /.test(line)));
    } while (cursor !== undefined);

    expect(pages).toBeGreaterThan(1);
    expect(seen.map((l) => /"text":"(message \d+)/.exec(l)?.[1])).toEqual(
      messages.map((_, i) => `message ${i}`),
    );
  });
});

describe('history pages (property)', () => {
  const messageArb = fc.record({
    seconds: fc.integer({ min: 0, max: 3 * 86_400 }),
    micros: fc.integer({ min: 0, max: 999_999 }),
    channel: fc.constantFrom('C_BUGS', 'C_SUMMARIES', 'C_DEVS'),
    senderType: fc.constantFrom<SenderType>('reporter', 'developer', 'bot'),
    text: fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      fc.string({ minLength: 3_000, maxLength: 6_000 }),
    ),
  });

  it('every message appears exactly once, in order, on pages within the size limit', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(messageArb, {
          maxLength: 60,
          selector: (m) => `${m.seconds}.${m.micros}#${m.channel}`,
        }),
        // The sizes of page the tool accepts (`max_chars`).
        fc.integer({ min: 1_000, max: 16_000 }),
        (drawn, maxChars) => {
          const messages = drawn.map((m) =>
            message('bug-prop', slackTs(m.seconds, m.micros), m.senderType, m.text, { channel: m.channel }),
          );
          // Slack order: by ts, then channel, as the cursors name them (`<ts>#<channel>`).
          const key = (m: (typeof messages)[number]) => `${m.ts}#${m.channel}`;
          const ordered = [...messages].sort((a, b) => (key(a) < key(b) ? -1 : 1));
          // Each message's line as a page of it alone shows it, under its date line.
          const expected = ordered.map(
            (m) => historyPage([m], { bugId: 'bug-prop', maxChars }).text.split('\n')[1],
          );

          const seen: string[] = [];
          let cursor: string | undefined;
          let total = 0;
          for (let pages = 0; ; pages++) {
            expect(pages).toBeLessThanOrEqual(messages.length);
            const page = historyPage(messages, {
              bugId: 'bug-prop',
              maxChars,
              ...(cursor ? { cursor } : {}),
            });
            expect(page.text.length).toBeLessThanOrEqual(maxChars);
            total += page.count;
            seen.push(...page.text.split('\n').filter((line) => !/^(--- .* ---|\[more: .*\])$/.test(line)));
            if (page.nextCursor === undefined) break;
            expect(page.count).toBeGreaterThan(0);
            expect(
              page.text.endsWith(`[more: call get_bug_conversations with cursor "${page.nextCursor}"]`),
            ).toBe(true);
            cursor = page.nextCursor;
          }

          if (messages.length === 0) return;
          expect(total).toBe(messages.length);
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
