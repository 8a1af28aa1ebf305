import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slashCommandForm } from '../../local/sandbox-console-doors.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { workerSandbox } from '../support/sandbox.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/**
 * Help for every slash command, through the sandbox's ingress configured from the synthesized
 * stack: `help`, an empty text and an unknown option are answered ephemerally with the
 * command's usage, and start nothing.
 */
describe('slash command help in the sandbox', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await workerSandbox({
      timeScale: 0.001,
      config: { issuePipeline: { repository: 'demo/webshop' } },
      logLevel: 'SILENT',
    });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  const driver = sandboxDriver(() => sandbox);
  async function command(name: string, text: string, triggerId: string) {
    const response = await driver.slash({
      command: name,
      text,
      channel: 'C_DEVELOPERS',
      user: 'U_DEV',
      triggerId,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { response_type: string; text: string };
  }

  it.each([
    ['/prd', 'help', 'Usage: `/prd &lt;product idea&gt;`'],
    ['/prd', '', '/prd needs &lt;product idea&gt;.'],
    [
      '/investigate',
      'help',
      'Usage: `/investigate &lt;description, alarm name or PagerDuty incident id&gt;`',
    ],
    ['/fix', 'help', 'Usage: `/fix &lt;issue URL or number&gt;`'],
    ['/fix', '', '/fix needs &lt;issue URL or number&gt;.'],
    ['/fix', '--all', '/fix has no option `--all`.'],
  ])('answers %s %j with its usage and starts nothing', async (name, text, expected) => {
    const answer = await command(name, text, `trigger-help-${name.slice(1)}-${text || 'empty'}`);

    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain(expected);
    expect(answer.text).toContain(`\`${name} help\` shows this help.`);
    // Whatever the command had queued has run by now: a start would be listed.
    await sandbox.idle();
    const listed = (await (await fetch(`${sandbox.url}/sandbox/conversations`)).json()) as {
      conversations: unknown[];
    };
    expect(listed.conversations).toEqual([]);
  });

  it("takes a command from the console's door signed like Slack's, and shows its answers to its writer alone", async () => {
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${sandbox.url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as { ok: boolean; text?: string };
    };
    const ephemerals = async (user: string) =>
      (
        (await (
          await fetch(`${sandbox.url}/sandbox/slack/ephemerals?user=${user}&channel=C_DEVELOPERS`)
        ).json()) as { messages: { text: string; ephemeral: boolean }[] }
      ).messages;
    const answer = await post('/sandbox/slack/command', {
      channel: 'C_DEVELOPERS',
      user: 'U_DEV',
      command: '/fix',
      text: 'help',
    });
    expect(answer.text).toContain('Usage: `/fix &lt;issue URL or number&gt;`');
    expect((await ephemerals('U_DEV')).map((m) => m.text)).toEqual([answer.text]);
    expect(await ephemerals('U_REPORTER')).toEqual([]);
    // A later answer through the command's response_url lands the same way.
    const form = Object.fromEntries(
      new URLSearchParams(
        slashCommandForm({
          teamId: 'T',
          appId: 'A',
          channel: { id: 'C_DEVELOPERS', name: 'developers' },
          user: { id: 'U_DEV', name: 'dev' },
          command: '/fix',
          text: '',
          triggerId: 't',
          responseUrl: 'https://x.test/r',
        }),
      ),
    );
    expect(form).toMatchObject({ command: '/fix', user_id: 'U_DEV', channel_id: 'C_DEVELOPERS' });
    await post('/sandbox/slack/command-response?channel=C_DEVELOPERS&user=U_DEV', {
      text: 'Done: #42 is queued.',
    });
    expect((await ephemerals('U_DEV')).map((m) => m.text)).toEqual([answer.text, 'Done: #42 is queued.']);
    expect((await ephemerals('U_DEV')).every((m) => m.ephemeral)).toBe(true);
  });
});
