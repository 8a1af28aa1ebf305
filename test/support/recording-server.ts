import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP server standing in for an API a door writes to (Slack's, GitHub's): it records
 * each request's body, form-decoded, and answers what `answer` gives.
 */
export async function startRecordingServer(
  answer: (request: IncomingMessage) => { status: number; body: unknown },
): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      bodies.push(decodeURIComponent(body.replace(/\+/g, ' ')));
      const { status, body: out } = answer(request);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
