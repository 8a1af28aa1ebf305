import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelFaults } from '../../local/model/faults.ts';
import { readBody } from '../../local/read-body.ts';
import { createFaultRoutes } from '../../local/sandbox-faults.ts';
import { SlackFaults } from '../../local/slack/faults.ts';

/** `/sandbox/faults` and the fault books behind it: validation, time scale, duration and count. */

let now = 1_000_000;
const clock = () => now;
const slack = new SlackFaults(clock);
const model = new ModelFaults(clock);
let server: Server;
let url = '';

beforeAll(async () => {
  const routes = createFaultRoutes({ slack, model, timeScale: 0.01 });
  server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      if (!(await routes(req, res, body))) res.writeHead(405).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sandbox/faults`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('/sandbox/faults', () => {
  it('refuses, with the reason, a fault that would last forever, an unknown kind or target, and a body that is not JSON', async () => {
    const forever = await post({ target: 'slack', kind: 'server_error' });
    const unknownKind = await post({ target: 'model', kind: 'explode', count: 1 });
    const unknownTarget = await post({ target: 'github', kind: 'server_error', count: 1 });
    const notJson = await fetch(url, { method: 'POST', body: '{' });

    expect(forever.status).toBe(400);
    expect(await forever.text()).toContain('give forSeconds or count');
    expect(unknownKind.status).toBe(400);
    expect(unknownTarget.status).toBe(400);
    expect(notJson.status).toBe(400);
    expect(slack.list()).toEqual([]);
    expect(model.list()).toEqual([]);
  });

  it('scales forSeconds by the time scale, and starts the clock at the first call the fault meets', async () => {
    const response = await post({
      target: 'slack',
      kind: 'server_error',
      method: 'chat.postMessage',
      forSeconds: 60,
    });
    expect(response.status).toBe(201);

    now += 10_000;
    expect(slack.take('chat.postMessage')?.kind).toBe('server_error');
    expect(slack.take('conversations.history')).toBeUndefined();
    now += 590;
    expect(slack.take('chat.postMessage')?.kind).toBe('server_error');
    now += 20;
    // 60 s at a time scale of 0.01 is 600 ms from the first call.
    expect(slack.take('chat.postMessage')).toBeUndefined();
  });

  it('ends a counted fault after its calls, and only hits the channel it names', async () => {
    await post({ target: 'slack', kind: 'accepted_then_error', channel: 'C_SUMMARIES', count: 1 });

    expect(slack.take('chat.postMessage', 'C_REPORTS')).toBeUndefined();
    expect(slack.take('chat.postMessage', 'C_SUMMARIES')?.kind).toBe('accepted_then_error');
    expect(slack.take('chat.postMessage', 'C_SUMMARIES')).toBeUndefined();
  });

  it('lists what is in force, and DELETE ends every fault', async () => {
    await post({ target: 'model', kind: 'rate_limited', count: 2 });

    const listed = (await (await fetch(url)).json()) as { model: { spec: { retryAfterSeconds: number } }[] };
    const cleared = await fetch(url, { method: 'DELETE' });

    expect(listed.model.map((f) => f.spec.retryAfterSeconds)).toEqual([3_600]);
    expect(cleared.status).toBe(200);
    expect(model.take()).toBeUndefined();
  });
});
