import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Just enough of the SQS JSON protocol (`AmazonSQS.SendMessage`) for the real
 * `@aws-sdk/client-sqs` to send to: records each call and answers as SQS does, with the
 * MD5 of the body that the SDK checks. `failWith` answers every call with an SQS error.
 */
export interface SqsCall {
  target: string | undefined;
  contentType: string | undefined;
  input: Record<string, unknown>;
}

export interface SqsJsonServer {
  endpoint: string;
  calls: SqsCall[];
  failWith: { status: number; type: string } | undefined;
  close(): Promise<void>;
}

export async function startSqsJsonServer(): Promise<SqsJsonServer> {
  const calls: SqsCall[] = [];
  const state: SqsJsonServer = {
    endpoint: '',
    calls,
    failWith: undefined,
    close: () =>
      new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      calls.push({
        target: header(request.headers, 'x-amz-target'),
        contentType: header(request.headers, 'content-type'),
        input,
      });
      response.setHeader('content-type', 'application/x-amz-json-1.0');
      if (state.failWith) {
        response.statusCode = state.failWith.status;
        response.end(
          JSON.stringify({
            __type: `com.amazonaws.sqs#${state.failWith.type}`,
            message: 'refused by the test',
          }),
        );
        return;
      }
      if (header(request.headers, 'x-amz-target') !== 'AmazonSQS.SendMessage') {
        response.statusCode = 400;
        response.end(
          JSON.stringify({ __type: 'com.amazonaws.sqs#UnsupportedOperation', message: 'not faked' }),
        );
        return;
      }
      const body = String(input.MessageBody);
      response.end(
        JSON.stringify({
          MessageId: `msg-${calls.length}`,
          MD5OfMessageBody: createHash('md5').update(body, 'utf8').digest('hex'),
          SequenceNumber: String(calls.length),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
