import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { signSlackRequest } from '../../local/slack/sign.ts';
import { workerSandbox } from '../support/sandbox.ts';

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

  async function command(name: string, text: string, triggerId: string) {
    const body = new URLSearchParams({
      token: 'deprecated',
      team_id: 'T_SANDBOX',
      channel_id: 'C_DEVELOPERS',
      channel_name: 'developers',
      user_id: 'U_DEV',
      user_name: 'dev',
      command: name,
      text,
      api_app_id: 'A_BOT',
      response_url: 'https://hooks.slack.invalid/commands/1',
      trigger_id: triggerId,
    }).toString();
    const response = await fetch(`${sandbox.url}/slack/events`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...signSlackRequest({ signingSecret: sandbox.signingSecret, body }),
      },
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
});
