import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { keepIdleConnections } from '../../local/http-server.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { listenSqsApi } from '../../local/sqs/api.ts';

/** How long the sandbox's servers keep an idle keep-alive connection (stated here, not imported: the value is what this test checks). */
const IDLE_CONNECTION_MS = 10 * 60_000;

/** Node's own idle period for keep-alive connections (`server.keepAliveTimeout`'s default). */
const NODE_DEFAULT_IDLE_MS = 5_000;

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await new Promise((done) => server.close(done));
});

/**
 * What became of a keep-alive client's connection over a pause longer than Node's default idle
 * period: `kept` when the second request went on the first connection, `closed` when the server
 * had closed it (the client opened another, or its request met the closing connection and failed:
 * the race a busy machine loses, when the close and the next request fall in one turn).
 */
async function afterAPause(server: Server): Promise<'kept' | 'closed'> {
  servers.push(server);
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<void>((done, fail) => {
      request({ host: '127.0.0.1', port, agent }, (response) => {
        response.resume();
        response.on('end', done);
      })
        .on('error', fail)
        .end();
    });
  try {
    await get();
    // A fixed pause: the connection must outlive Node's idle period, and that nothing closes it is no event.
    await sleep(NODE_DEFAULT_IDLE_MS + 1_000);
    const second = await get().then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    if (second === 'answered') return connections === 1 ? 'kept' : 'closed';
    expect(['ECONNRESET', 'EPIPE'], 'the only failures a closed connection explains').toContain(second);
    return 'closed';
  } finally {
    agent.destroy();
  }
}

const ok = () => createServer((_request, response) => response.end('ok'));

describe("the emulators' servers and idle keep-alive connections", () => {
  it("keep a client's idle connection past Node's default idle period, which closes it", async () => {
    const [kept, closed] = await Promise.all([afterAPause(keepIdleConnections(ok())), afterAPause(ok())]);
    expect(kept).toBe('kept');
    expect(closed).toBe('closed');
  });

  it('holds for the SQS and Slack emulators', async () => {
    const sqs = await listenSqsApi();
    const slack = await listenFakeSlack(new FakeSlack({ botToken: 'xoxb-sandbox-token', channels: [] }));
    try {
      for (const server of [sqs.server, slack.server]) {
        expect(server.keepAliveTimeout).toBe(IDLE_CONNECTION_MS);
        expect(server.headersTimeout).toBeGreaterThan(IDLE_CONNECTION_MS);
      }
    } finally {
      await sqs.close();
      await slack.close();
    }
  });
});
