import { describe, expect, it } from 'vitest';
import { type Inline, parseMrkdwn, parsePlain } from '../../console/src/mrkdwn.ts';

/** What `parseMrkdwn` reads from text of one plain line: that line, with these pieces. */
const oneLine = (children: Inline[]) => [{ type: 'lines', lines: [{ type: 'line', children }] }];

describe("the console's mrkdwn", () => {
  it('reads bold, italic, strike and code, and leaves snake_case alone', () => {
    expect(parseMrkdwn('*bold* _it_ ~gone~ `a*b*` snake_case_name')).toEqual(
      oneLine([
        { type: 'bold', children: [{ type: 'text', text: 'bold' }] },
        { type: 'text', text: ' ' },
        { type: 'italic', children: [{ type: 'text', text: 'it' }] },
        { type: 'text', text: ' ' },
        { type: 'strike', children: [{ type: 'text', text: 'gone' }] },
        { type: 'text', text: ' ' },
        { type: 'code', text: 'a*b*' },
        { type: 'text', text: ' snake_case_name' },
      ]),
    );
  });

  it('reads links, mentions, groups and specials, and links nothing but http(s) and mailto', () => {
    expect(
      parseMrkdwn(
        '<https://x.test/a?b=1&amp;c=2|the PR> <@U_DEV> <#C_BUG_REPORTS> <!subteam^S_ONCALL> <!here> <javascript:alert(1)|x>',
      ),
    ).toEqual(
      oneLine([
        { type: 'link', url: 'https://x.test/a?b=1&c=2', label: 'the PR' },
        { type: 'text', text: ' ' },
        { type: 'user', id: 'U_DEV' },
        { type: 'text', text: ' ' },
        { type: 'channel', id: 'C_BUG_REPORTS' },
        { type: 'text', text: ' ' },
        { type: 'group', id: 'S_ONCALL' },
        { type: 'text', text: ' ' },
        { type: 'special', name: 'here' },
        { type: 'text', text: ' x' },
      ]),
    );
  });

  it('shows escaped text as written and known shortcodes as emoji', () => {
    expect(parseMrkdwn(':eyes: a &lt;b&gt; &amp; :not_an_emoji:')).toEqual(
      oneLine([
        { type: 'emoji', name: 'eyes', char: '👀' },
        { type: 'text', text: ' a <b> & ' },
        { type: 'emoji', name: 'not_an_emoji' },
      ]),
    );
    expect(parsePlain(':mag: *Bug* findings')).toEqual([
      { type: 'emoji', name: 'mag', char: '🔍' },
      { type: 'text', text: ' *Bug* findings' },
    ]);
  });

  it('splits code blocks and quotes from lines', () => {
    expect(parseMrkdwn('one\n&gt; said\n```a *b*\n```\ntwo')).toEqual([
      {
        type: 'lines',
        lines: [
          { type: 'line', children: [{ type: 'text', text: 'one' }] },
          { type: 'quote', children: [{ type: 'text', text: 'said' }] },
        ],
      },
      { type: 'pre', text: 'a *b*\n' },
      { type: 'lines', lines: [{ type: 'line', children: [{ type: 'text', text: 'two' }] }] },
    ]);
  });
});
