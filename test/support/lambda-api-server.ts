import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { noteActivity } from '../../local/activity.ts';
import { keepIdleConnections } from '../../local/http-server.ts';
import { createLambdaApi } from '../../local/lambda/api.ts';

/** What the function named in an Invoke call answers for a payload. */
export type InvokeFunction = Parameters<typeof createLambdaApi>[0];

/** The Invoke API's options (which functions exist, ...). */
type LambdaApiOptions = NonNullable<Parameters<typeof createLambdaApi>[1]>;

export interface LambdaApiServer {
  /** The endpoint for `new LambdaClient({ endpoint })`, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  close(): Promise<void>;
}

/** Serves the Invoke API on its own HTTP server, for tests; the sandbox mounts `createLambdaApi` on its shared server. */
export async function listenLambdaApi(
  invoke: InvokeFunction,
  options: LambdaApiOptions & { host?: string; port?: number } = {},
): Promise<LambdaApiServer> {
  const { host = '127.0.0.1', port = 0, ...apiOptions } = options;
  const api = createLambdaApi(invoke, apiOptions);
  const server = createServer((req, res) => {
    noteActivity();
    api(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Type: 'Service', message: String(error) }));
    });
  });
  keepIdleConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
