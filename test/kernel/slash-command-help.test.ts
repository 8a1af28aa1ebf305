import { describe, expect, it } from 'vitest';
import { readCommandText, type SlashCommandUsage } from '../../lambdas/kernel/slash-command-help.ts';

const PRD: SlashCommandUsage = {
  command: '/prd',
  description: 'Start a requirements interview: the bot asks about your idea, then writes a PRD',
  usageHint: '<product idea>',
};
const FIX: SlashCommandUsage = {
  command: '/fix',
  description: 'Run the issue pipeline on an issue of acme/shop: triage to pull request',
  usageHint: '<issue URL or number>',
  names: {
    names: [{ anchor: 'github_issue', repository: 'acme/shop' }],
    refusal: 'names no issue of acme/shop',
    help: 'The issue is one of acme/shop: its number (`42`, `#42`) or its URL.',
    anchored: true,
    once: true,
  },
};

/** A command's help: what `<command> help` answers. */
function helpOf(usage: SlashCommandUsage): string {
  const reading = readCommandText(usage, 'help');
  if (reading.type !== 'answer') throw new Error(`${usage.command} help ran instead of answering`);
  return reading.text;
}

describe('slash command help', () => {
  it('shows what the command does, its usage line and its help subcommand', () => {
    expect(helpOf(PRD)).toBe(
      [
        '*/prd*: Start a requirements interview: the bot asks about your idea, then writes a PRD',
        'Usage: `/prd &lt;product idea&gt;`',
        '`/prd help` shows this help.',
      ].join('\n'),
    );
  });

  it('says how an issue command names its issue', () => {
    expect(helpOf(FIX)).toContain('The issue is one of acme/shop: its number (`42`, `#42`) or its URL.');
  });

  it.each(['help', 'HELP', ' --help ', '-h', '?'])('answers %j with the help instead of running', (text) => {
    expect(readCommandText(PRD, text)).toEqual({ type: 'answer', reason: 'help', text: helpOf(PRD) });
  });

  it('answers an empty command with what it needs, so `/prd` alone starts no interview', () => {
    const reading = readCommandText(PRD, '   ');
    expect(reading).toMatchObject({ type: 'answer', reason: 'missing_argument' });
    expect(reading.type === 'answer' && reading.text).toBe(
      `/prd needs &lt;product idea&gt;.\n${helpOf(PRD)}`,
    );
  });

  it('answers `/fix` with no argument with its usage', () => {
    expect(readCommandText(FIX, '')).toMatchObject({
      type: 'answer',
      reason: 'missing_argument',
      text: expect.stringContaining('Usage: `/fix &lt;issue URL or number&gt;`'),
    });
  });

  it('escapes what Slack would read as a link, a mention or an entity, so the hint shows as written', () => {
    const help = helpOf({ ...PRD, description: 'Ideas & <plans>' });
    expect(help).toContain('Usage: `/prd &lt;product idea&gt;`');
    expect(help).toContain('*/prd*: Ideas &amp; &lt;plans&gt;');
    expect(help).not.toMatch(/<|&(?!amp;|lt;|gt;)/);
    expect(readCommandText(FIX, '<https://example.com|x>')).toMatchObject({
      text: expect.stringMatching(/^`&lt;https:\/\/example.com\|x&gt;` names no issue/),
    });
  });

  it('answers an unknown option with the usage', () => {
    expect(readCommandText(PRD, '--list all')).toMatchObject({
      type: 'answer',
      reason: 'unknown_subcommand',
      text: expect.stringMatching(/^\/prd has no option `--list`\.\n\*\/prd\*/),
    });
  });

  it('answers an issue command whose text names no issue of its repository', () => {
    expect(readCommandText(FIX, 'https://github.com/other/repo/issues/4')).toMatchObject({
      type: 'answer',
      reason: 'unnamed',
      text: expect.stringMatching(
        /^`https:\/\/github.com\/other\/repo\/issues\/4` names no issue of acme\/shop\./,
      ),
    });
    expect(readCommandText(FIX, 'the `checkout` bug')).toMatchObject({
      text: expect.stringMatching(/^`the 'checkout' bug` names no issue/),
    });
  });

  it('runs a command whose text is an idea or an issue', () => {
    expect(readCommandText(PRD, 'a dark mode for the dashboard')).toEqual({ type: 'run' });
    expect(readCommandText(PRD, 'help desk with SLAs')).toEqual({ type: 'run' });
    expect(readCommandText(FIX, '#42')).toEqual({ type: 'run' });
    expect(readCommandText(FIX, 'https://github.com/acme/shop/issues/42')).toEqual({ type: 'run' });
  });
});
