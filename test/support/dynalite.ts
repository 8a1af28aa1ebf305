import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { keepDynaliteExpressions } from '../../local/dynalite-expressions.ts';
import { keepIdleConnections } from '../../local/http-server.ts';
import { until } from './eventually.ts';

export interface DynaliteOptions {
  /**
   * The test's client hands each request to dynalite's request handler in this process instead
   * of sending it over a socket: the same DynamoDB JSON requests and answers, without the HTTP
   * round trip (for tests that make thousands of calls). Its requests carry a SigV4
   * Authorization header with a placeholder signature: dynalite checks the header's form, never
   * the signature, and the HMACs of a real one are most of the SDK's own work per call. The
   * server listens all the same, for handlers that reach it through `endpoint`.
   * @default false
   */
  readonly inProcess?: boolean;
}

/** An in-process dynalite with the kernel's table, for tests that need the real DynamoDB protocol. */
export async function startDynalite(tableName = 'Conversations', options: DynaliteOptions = {}) {
  keepDynaliteExpressions();
  const server = keepIdleConnections(dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dynalite did not bind a TCP port');
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    ...(options.inProcess
      ? {
          requestHandler: inProcessHandler(server),
          httpAuthSchemes: [
            {
              schemeId: 'aws.auth#sigv4',
              identityProvider: (config) => config.getIdentityProvider('aws.auth#sigv4'),
              signer: placeholderSigner,
            },
          ],
        }
      : {}),
  });
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  // dynalite turns a new table ACTIVE on a timer: a caller without a socket in between is quicker.
  await until(
    async () =>
      (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableStatus === 'ACTIVE',
    `dynalite's table ${tableName} to become active`,
  );
  return {
    client,
    endpoint,
    tableName,
    /**
     * Calls `listener` with the operation (`UpdateItem`, ...) and the JSON body of every request
     * that reaches dynalite over its socket from now on (the handlers' clients); returns what
     * stops it.
     */
    observe(listener: (operation: string, body: Record<string, unknown>) => void): () => void {
      const onRequest = (req: IncomingMessage) => {
        const operation = String(req.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => listener(operation, JSON.parse(Buffer.concat(chunks).toString() || '{}')));
      };
      server.on('request', onRequest);
      return () => server.off('request', onRequest);
    },
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The environment the real handlers need to reach this dynalite (their `kernelDeps()` read it). */
export function handlerEnvironment(db: { tableName: string; endpoint: string }): Record<string, string> {
  return {
    TABLE_NAME: db.tableName,
    // Configured, as the sandbox configures it: without it the handlers ask Slack's auth.test.
    SLACK_BOT_USER_ID: 'U_BOT',
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };
}

/**
 * Signs as SigV4 does in form only: the Authorization header and X-Amz-Date that dynalite
 * requires, with the test credentials and a placeholder signature (dynalite never checks it).
 * The headers change once a second, so they are made once a second.
 */
const placeholderSigner = {
  async sign<R extends { headers: Record<string, string> }>(request: R): Promise<R> {
    const { date, authorization } = placeholderHeaders();
    request.headers['x-amz-date'] = date;
    request.headers.authorization = authorization;
    return request;
  },
};

let placeholder = { second: -1, date: '', authorization: '' };
function placeholderHeaders(): { date: string; authorization: string } {
  const second = Math.floor(Date.now() / 1000);
  if (second !== placeholder.second) {
    const date = new Date(second * 1000)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const authorization =
      `AWS4-HMAC-SHA256 Credential=test/${date.slice(0, 8)}/us-east-1/dynamodb/aws4_request, ` +
      `SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`;
    placeholder = { second, date, authorization };
  }
  return placeholder;
}

interface SignedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * A request handler for the SDK that answers through `server`'s request listener, in process.
 * The listener reads a request as a stream's events (`data`, then `end`); a plain emitter gives
 * it those, the body a tick after the listener has subscribed, as a socket would.
 */
function inProcessHandler(server: Server) {
  const listener = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    destroy: () => {},
    handle(request: SignedRequest) {
      return new Promise<{
        response: { statusCode: number; headers: Record<string, string>; body: Uint8Array };
      }>((resolve, reject) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
        const req = Object.assign(new EventEmitter(), { method: request.method, url: request.path, headers });
        const responseHeaders: Record<string, string> = {};
        const res = {
          statusCode: 200,
          contentType: undefined as string | undefined,
          setHeader: (name: string, value: unknown) => {
            responseHeaders[name.toLowerCase()] = String(value);
          },
          end: (body?: string) => {
            resolve({
              response: {
                statusCode: res.statusCode,
                headers: responseHeaders,
                body: Buffer.from(body ?? ''),
              },
            });
          },
        };
        try {
          listener(req as unknown as IncomingMessage, res as unknown as ServerResponse);
        } catch (error) {
          reject(error);
          return;
        }
        process.nextTick(() => {
          // The bytes as they are: the SDK's JSON body answers `valueOf()` with its text, which
          // `Buffer.from(body)` would take (and the SDK warn about).
          const body = request.body;
          if (body !== undefined && body.length > 0)
            req.emit(
              'data',
              typeof body === 'string'
                ? Buffer.from(body)
                : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
            );
          req.emit('end');
        });
      });
    },
  };
}
