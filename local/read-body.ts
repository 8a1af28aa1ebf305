import type { IncomingMessage } from 'node:http';

/** The whole request body as UTF-8 text (every emulated API speaks JSON or form text). */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
