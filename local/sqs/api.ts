import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepIdleConnections } from '../http-server.ts';
import { readBody } from '../read-body.ts';
import { SqsError } from './errors.ts';
import { SqsQueueService, type SqsQueueServiceOptions, type SqsRequest } from './queue-service.ts';

/** Requests whose `x-amz-target` starts with this belong to SQS. */
export const SQS_TARGET_PREFIX = 'AmazonSQS.';

const CONTENT_TYPE = 'application/x-amz-json-1.0';

export type SqsHttpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body?: string | Buffer,
) => Promise<void>;

type Operation = (service: SqsQueueService, request: SqsRequest, signal: AbortSignal) => unknown;

const OPERATIONS: Record<string, Operation> = {
  CreateQueue: (service, request) => service.createQueue(request),
  GetQueueUrl: (service, request) => service.getQueueUrl(request),
  ListQueues: (service, request) => service.listQueues(request),
  DeleteQueue: (service, request) => service.deleteQueue(request),
  GetQueueAttributes: (service, request) => service.getQueueAttributes(request),
  SetQueueAttributes: (service, request) => service.setQueueAttributes(request),
  SendMessage: (service, request) => service.sendMessage(request),
  SendMessageBatch: (service, request) => service.sendMessageBatch(request),
  ReceiveMessage: (service, request, signal) => service.receiveMessage(request, { signal }),
  DeleteMessage: (service, request) => service.deleteMessage(request),
  DeleteMessageBatch: (service, request) => service.deleteMessageBatch(request),
  ChangeMessageVisibility: (service, request) => service.changeMessageVisibility(request),
  ChangeMessageVisibilityBatch: (service, request) => service.changeMessageVisibilityBatch(request),
  PurgeQueue: (service, request) => service.purgeQueue(request),
};

/**
 * The SQS JSON protocol (awsJson1_0) over HTTP: `POST /` with `x-amz-target:
 * AmazonSQS.<Operation>`, JSON in and out. Errors are HTTP 4xx with `__type` and the
 * query-compatible `x-amzn-query-error` header, so `@aws-sdk/client-sqs` raises the modelled
 * exception (`err.name === 'QueueDoesNotExist'`). Requests are not signature-checked.
 *
 * `body` is the request body if the caller has already read it; otherwise it is read here.
 */
export function createSqsApiHandler(service: SqsQueueService): SqsHttpHandler {
  return async (req, res, body) => {
    const text = body === undefined ? await readBody(req) : body.toString('utf8');
    const target = String(req.headers['x-amz-target'] ?? '');
    const operationName = target.startsWith(SQS_TARGET_PREFIX) ? target.slice(SQS_TARGET_PREFIX.length) : '';
    // A client that hangs up ends its long poll, so the message is not received into the void.
    const disconnected = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) disconnected.abort();
    });
    try {
      const operation = OPERATIONS[operationName];
      if (req.method !== 'POST' || !operation) {
        throw new SqsError(
          'UnsupportedOperation',
          `The SQS emulator does not serve ${req.method} ${target || '(no x-amz-target)'}.`,
        );
      }
      const result = await operation(service, parseRequest(text), disconnected.signal);
      send(res, 200, result);
    } catch (error) {
      if (error instanceof SqsError) {
        send(
          res,
          error.status,
          { __type: `com.amazonaws.sqs#${error.name}`, message: error.message },
          {
            'x-amzn-query-error': `${error.queryCode};Sender`,
          },
        );
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      send(res, 500, { __type: 'com.amazonaws.sqs#InternalError', message });
    }
  };
}

export interface SqsApiServer {
  service: SqsQueueService;
  server: Server;
  /** The endpoint for `new SQSClient({ endpoint })`, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  /** Closes the service (ending long polls) and the server. */
  close(): Promise<void>;
}

/**
 * Serves a fresh SqsQueueService on its own HTTP server; queue URLs carry the bound port.
 * For tests and scripts; the sandbox mounts `createSqsApiHandler` on its shared server.
 */
export async function listenSqsApi(
  options: { host?: string; port?: number } & Omit<SqsQueueServiceOptions, 'baseUrl'> = {},
): Promise<SqsApiServer> {
  const { host = '127.0.0.1', port = 0, ...serviceOptions } = options;
  let handler: SqsHttpHandler | undefined;
  const server = createServer((req, res) => {
    if (!handler) {
      send(res, 503, { __type: 'com.amazonaws.sqs#ServiceUnavailable', message: 'starting' });
      return;
    }
    void handler(req, res);
  });
  keepIdleConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const endpoint = `http://${host}:${address.port}`;
  const service = new SqsQueueService({ ...serviceOptions, baseUrl: endpoint });
  handler = createSqsApiHandler(service);
  return {
    service,
    server,
    endpoint,
    close: async () => {
      service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseRequest(text: string): SqsRequest {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new SqsError('SerializationException', 'The request body is not valid JSON.', { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SqsError('SerializationException', 'The request body must be a JSON object.');
  }
  return parsed as SqsRequest;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': CONTENT_TYPE,
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  res.end(payload);
}
