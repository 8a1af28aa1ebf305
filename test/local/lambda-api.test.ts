import type { IncomingMessage } from 'node:http';
import { InvokeCommand, LambdaClient, ResourceNotFoundException } from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLambdaInvokeRequest } from '../../local/lambda/api.ts';
import { LambdaFunctionNotFoundError } from '../../local/lambda/errors.ts';
import { type InvokeFunction, type LambdaApiServer, listenLambdaApi } from '../support/lambda-api-server.ts';

// The real @aws-sdk/client-lambda against the emulator on its own HTTP server, with
// in-process functions standing in for the sandbox's handlers.

class CheckoutFailedError extends Error {
  override readonly name = 'CheckoutFailedError';
}

const calls: { name: string; payload: unknown }[] = [];
const functions: Record<string, (payload: unknown) => Promise<unknown>> = {
  Echo: async (payload) => ({ echoed: payload }),
  Nothing: async () => undefined,
  Broken: async () => {
    throw new CheckoutFailedError('the checkout service answered 500');
  },
};
const invoke: InvokeFunction = async (name, payload) => {
  calls.push({ name, payload });
  const fn = functions[name];
  if (!fn) throw new LambdaFunctionNotFoundError(name);
  return fn(payload);
};

let api: LambdaApiServer;
let lambda: LambdaClient;

beforeEach(async () => {
  calls.length = 0;
  api = await listenLambdaApi(invoke);
  lambda = new LambdaClient({
    endpoint: api.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});

afterEach(async () => {
  lambda.destroy();
  await api.close();
});

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const decode = (payload: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(payload)) as unknown;

describe('the Lambda Invoke emulator', () => {
  it('runs the function with the payload and answers its result', async () => {
    const response = await lambda.send(
      new InvokeCommand({ FunctionName: 'Echo', Payload: encode({ tool: 'get_bug_conversations' }) }),
    );

    expect(response.StatusCode).toBe(200);
    expect(response.FunctionError).toBeUndefined();
    expect(response.ExecutedVersion).toBe('$LATEST');
    expect(decode(response.Payload)).toEqual({ echoed: { tool: 'get_bug_conversations' } });
    expect(calls).toEqual([{ name: 'Echo', payload: { tool: 'get_bug_conversations' } }]);
  });

  it('answers null for a handler that returns nothing, and hands it {} when there is no payload', async () => {
    const response = await lambda.send(new InvokeCommand({ FunctionName: 'Nothing' }));

    expect(decode(response.Payload)).toBeNull();
    expect(calls).toEqual([{ name: 'Nothing', payload: {} }]);
  });

  it('reports a handler that throws as an Unhandled function error, as the Node.js runtime does', async () => {
    const response = await lambda.send(new InvokeCommand({ FunctionName: 'Broken', Payload: encode({}) }));

    expect(response.StatusCode).toBe(200);
    expect(response.FunctionError).toBe('Unhandled');
    const report = decode(response.Payload) as { errorType: string; errorMessage: string; trace: string[] };
    expect(report.errorType).toBe('CheckoutFailedError');
    expect(report.errorMessage).toBe('the checkout service answered 500');
    expect(report.trace[0]).toBe('CheckoutFailedError: the checkout service answered 500');
  });

  it('raises ResourceNotFoundException in the SDK for a function that does not exist', async () => {
    const error = await lambda
      .send(new InvokeCommand({ FunctionName: 'Missing', Payload: encode({}) }))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect((error as ResourceNotFoundException).$metadata.httpStatusCode).toBe(404);
    expect((error as Error).message).toBe(
      'Function not found: arn:aws:lambda:us-east-1:000000000000:function:Missing',
    );
  });

  it('checks existence before running anything when it is told which functions exist', async () => {
    const strict = await listenLambdaApi(invoke, { exists: (name) => name in functions });
    const client = new LambdaClient({
      endpoint: strict.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    try {
      await expect(
        client.send(new InvokeCommand({ FunctionName: 'Missing', InvocationType: 'Event' })),
      ).rejects.toBeInstanceOf(ResourceNotFoundException);
      expect(calls).toEqual([]);
    } finally {
      client.destroy();
      await strict.close();
    }
  });

  it.each([
    ['a full ARN', 'arn:aws:lambda:us-east-1:000000000000:function:Echo'],
    ['a full ARN with a qualifier', 'arn:aws:lambda:us-east-1:000000000000:function:Echo:live'],
    ['a partial ARN', '000000000000:function:Echo'],
    ['a name with an alias', 'Echo:live'],
  ])('finds the function named by %s', async (_form, functionName) => {
    const response = await lambda.send(new InvokeCommand({ FunctionName: functionName, Payload: encode(1) }));

    expect(decode(response.Payload)).toEqual({ echoed: 1 });
    expect(calls).toEqual([{ name: 'Echo', payload: 1 }]);
  });

  it('answers an Event invocation with 202 at once and runs the function in the background', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finished = false;
    functions.Slow = async () => {
      await released;
      finished = true;
    };
    try {
      const response = await lambda.send(
        new InvokeCommand({ FunctionName: 'Slow', InvocationType: 'Event', Payload: encode({}) }),
      );

      expect(response.StatusCode).toBe(202);
      expect(finished).toBe(false);
      release();
      await expect.poll(() => finished).toBe(true);
    } finally {
      delete functions.Slow;
    }
  });

  it('answers a DryRun with 204 without running the function', async () => {
    const response = await lambda.send(new InvokeCommand({ FunctionName: 'Echo', InvocationType: 'DryRun' }));

    expect(response.StatusCode).toBe(204);
    expect(calls).toEqual([]);
  });

  it('rejects a payload that is not JSON with InvalidRequestContentException', async () => {
    const error = await lambda
      .send(new InvokeCommand({ FunctionName: 'Echo', Payload: new TextEncoder().encode('{not json') }))
      .catch((e: unknown) => e);

    expect((error as Error).name).toBe('InvalidRequestContentException');
    expect(calls).toEqual([]);
  });
});

describe('routing and names', () => {
  const request = (method: string, url: string) => ({ method, url, headers: {} }) as IncomingMessage;

  it('recognises Invoke requests by method and path', () => {
    expect(isLambdaInvokeRequest(request('POST', '/2015-03-31/functions/Echo/invocations'))).toBe(true);
    expect(
      isLambdaInvokeRequest(
        request(
          'POST',
          '/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A0%3Afunction%3AEcho/invocations?Qualifier=1',
        ),
      ),
    ).toBe(true);
    expect(isLambdaInvokeRequest(request('GET', '/2015-03-31/functions/Echo/invocations'))).toBe(false);
    expect(isLambdaInvokeRequest(request('POST', '/api/chat.postMessage'))).toBe(false);
  });

  it('takes the function name out of names and ARNs', async () => {
    const named = async (FunctionName: string) => {
      calls.length = 0;
      await lambda.send(new InvokeCommand({ FunctionName, Payload: encode({}) }));
      return calls.map((call) => call.name);
    };
    expect(await named('Echo')).toEqual(['Echo']);
    expect(await named('Echo:3')).toEqual(['Echo']);
    expect(await named('000000000000:function:Echo')).toEqual(['Echo']);
    expect(await named('arn:aws:lambda:us-east-1:000000000000:function:Echo:$LATEST')).toEqual(['Echo']);
  });
});
