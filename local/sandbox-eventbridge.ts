import type { ServerResponse } from 'node:http';

/** Invokes the ingress with an EventBridge event, as the alarm rule's Lambda target does; answers what it returned. */
export async function serveEventBridge(
  res: ServerResponse,
  body: string,
  invoke: (event: unknown) => Promise<unknown>,
): Promise<void> {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"the body is not JSON"}');
    return;
  }
  try {
    const result = await invoke(event);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  } catch (error) {
    // A throw is what makes EventBridge retry: shown as 502, like a failed async invocation.
    res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }));
  }
}
