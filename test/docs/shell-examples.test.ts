import { describe, expect, it } from 'vitest';
import { answerBindings, isOpen, placeholders, shellBlocks, shellCommands } from './shell-examples.ts';

describe('reading shell examples from a page', () => {
  it('goes on while a quote, a command substitution or a trailing backslash is open', () => {
    expect(isOpen(`curl -d '{"a":1,`)).toBe(true);
    expect(isOpen(`curl -d '{"a":1}'`)).toBe(false);
    expect(isOpen('sig="v0=$(printf \'%s\' "$ts" | openssl dgst -hmac "$secret" | sed \'s/^.* //\')"')).toBe(
      false,
    );
    expect(isOpen('sig="v0=$(printf \'%s\' "$ts"')).toBe(true);
    expect(isOpen('curl -s localhost:3000 \\')).toBe(true);
    expect(isOpen("curl -s 'localhost:3000/x'   # a comment's ' quote does not count")).toBe(false);
    const event = `curl -d '{"v":"0",\n"time":"'"$(date -u +%Y)"'","r":"x"}`;
    expect(isOpen(event)).toBe(true);
    expect(isOpen(`${event}'`)).toBe(false);
  });

  it('splits a block into commands and keeps what a comment says a command answers', () => {
    const commands = shellCommands([
      '# a comment',
      'curl -s -XPOST localhost:3000/x -d \'{"channel":"C",',
      '  "text":"hi"}\'',
      '#    -> {"ts":"<report ts>"}',
      '',
      "curl -s 'localhost:3000/y?thread_ts=<report ts>'",
    ]);
    expect(commands).toHaveLength(2);
    expect(commands[0]?.text).toContain('"text":"hi"');
    expect(commands[0]?.answer).toBe('{"ts":"<report ts>"}');
    expect(commands[1]?.answer).toBeUndefined();
  });

  it('reads only bash and sh blocks', () => {
    const page = ['```json', '{"a": 1}', '```', 'text', '```bash', 'curl -s localhost:3000', '```'].join(
      '\n',
    );
    const blocks = shellBlocks(page);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.line).toBe(5);
    expect(blocks[0]?.commands.map((c) => c.text)).toEqual(['curl -s localhost:3000']);
  });

  it('tells placeholders from Slack mentions and binds them from an answer', () => {
    expect(placeholders('"text":"<@U_BOT> hi","thread_ts":"<idea ts>" pull/<n>')).toEqual(['idea ts', 'n']);
    expect(answerBindings('{"number":<n>, ...}')).toEqual([{ field: 'number', placeholder: 'n' }]);
    expect(answerBindings('{"ts":"<idea ts>"}: the thread')).toEqual([
      { field: 'ts', placeholder: 'idea ts' },
    ]);
  });

  it('refuses a block whose last command never ends', () => {
    expect(() => shellCommands(["curl -d '{"])).toThrow(/unterminated/);
  });
});
