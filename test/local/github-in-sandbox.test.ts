import { randomBytes } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { workerSandbox } from '../support/sandbox.ts';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await workerSandbox({
    modules: [KERNEL_PROBE_MODULE],
    config: { channels: { probe: 'C_PROBE' } },
    logLevel: 'SILENT',
    githubWebhookSecret: randomBytes(16).toString('hex'),
  });
});
afterAll(async () => sandbox?.stop());

describe('the sandbox serves GitHub on its port', () => {
  it('answers Octokit at /api/v3 with the demo repository, beside the Slack API at /api/', async () => {
    const octokit = new Octokit({
      baseUrl: `${sandbox.url}/api/v3`,
      auth: sandbox.github.createUserToken('demo-dev'),
    });
    const { data } = await octokit.rest.repos.get({ owner: 'demo', repo: 'webshop' });
    expect(data).toMatchObject({ full_name: 'demo/webshop', default_branch: 'main' });
    const slack = await fetch(`${sandbox.url}/api/auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${process.env.SLACK_BOT_TOKEN}` },
    });
    expect(((await slack.json()) as { ok: boolean }).ok).toBe(true);
  });

  it('gives the handlers the webhook secret it signs with, and delivers to its own /github/events', async () => {
    expect(process.env.GITHUB_WEBHOOK_SECRET).toBe(sandbox.github.webhookSecret);
    const response = await fetch(`${sandbox.url}/sandbox/github/issues`, {
      method: 'POST',
      body: JSON.stringify({ repo: 'demo/webshop', title: 'Checkout totals too high' }),
    });
    expect(response.status).toBe(201);
    const { deliveries } = (await (await fetch(`${sandbox.url}/sandbox/github/deliveries`)).json()) as {
      deliveries: { event: string; url: string; status?: number }[];
    };
    expect(deliveries.at(-1)).toMatchObject({ event: 'issues', url: `${sandbox.url}/github/events` });
    // Whatever the ingress answers (it may not route GitHub events yet), the status is recorded.
    expect(typeof deliveries.at(-1)?.status).toBe('number');
  });
});
