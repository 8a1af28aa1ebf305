import type { ServerResponse } from 'node:http';

/** The sandbox's stream of change events (`GET /sandbox/events`), which the web console follows. */

export type ChangeKind = 'slack' | 'execution' | 'conversation';

/** Server-sent change events: the console re-reads what it shows when one arrives. */
export class ChangeFeed {
  private readonly clients = new Set<ServerResponse>();
  private readonly ping = setInterval(() => {
    for (const client of this.clients) client.write(': ping\n\n');
  }, 15_000);

  constructor() {
    this.ping.unref();
  }

  subscribe(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  notify(kind: ChangeKind): void {
    for (const client of this.clients) client.write(`event: change\ndata: ${JSON.stringify({ kind })}\n\n`);
  }

  close(): void {
    clearInterval(this.ping);
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
}
