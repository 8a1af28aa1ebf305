import type { ServerResponse } from 'node:http';

/** What the sandbox's JSON doors share: reading a JSON object body, answering JSON. */

/** The body as a JSON object, or undefined when it is not one. */
export function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Answers `value` as JSON; true, so a router can return it as "handled". */
export function send(res: ServerResponse, status: number, value: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  return true;
}
