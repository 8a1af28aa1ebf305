import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BedrockRuntimeClient,
  InvokeModelCommand,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBedrockModel } from '../../lambdas/adapters/bedrock-model.ts';
import { ModelCallError } from '../../lambdas/agents/errors.ts';
import { createBedrockRuntime } from '../../local/bedrock/runtime-api.ts';
import { readBody } from '../../local/read-body.ts';
import { httpError, type ModelReply, startScriptedModel, text } from '../support/scripted-model.ts';

/**
 * The emulated Bedrock Runtime between the real clients and a scripted Messages API: the
 * project's Bedrock adapter (`@anthropic-ai/bedrock-sdk`, SigV4 with dummy credentials) and,
 * as an independent description of the wire protocol, AWS's own `@aws-sdk/client-bedrock-runtime`,
 * whose service model decides which status and header make which exception.
 */

const REGION = 'eu-west-1';
const credentials = { accessKeyId: 'AKIDBEDROCKTEST', secretAccessKey: `secret-${Date.now()}` };
let next: ModelReply[] = [];
let model: Awaited<ReturnType<typeof startScriptedModel>>;
let runtime: ReturnType<typeof createBedrockRuntime>;
let server: Server;
let endpoint: string;

beforeAll(async () => {
  model = await startScriptedModel({
    steps: () => next.shift() ?? httpError(500, 'the test gave no reply'),
    retryAfterMs: 1,
  });
  runtime = createBedrockRuntime({ upstream: () => model.baseUrl });
  server = createServer((req, res) => {
    void readBody(req).then((body) => runtime.handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await model.close();
});

beforeEach(() => {
  next = [];
});

const bedrockModel = () => createBedrockModel({ region: REGION, baseURL: endpoint, maxRetries: 0 });
// HTTP/1.1: the client defaults to HTTP/2 (for its bidirectional streams), which the sandbox's port does not speak.
const aws = () =>
  new BedrockRuntimeClient({
    region: REGION,
    endpoint,
    credentials,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
const invokeBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hello' }],
    ...extra,
  });

describe('the emulated Bedrock Runtime', () => {
  it('serves the Bedrock adapter: model id from the path, anthropic_version from the body, a signed request', async () => {
    next = [text('hello from behind Bedrock')];
    const message = await bedrockModel().createMessage({
      model: 'global.anthropic.claude-sonnet-5-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello' }],
    });

    expect(message.content).toEqual([{ type: 'text', text: 'hello from behind Bedrock' }]);
    const upstream = model.requests.at(-1);
    expect(upstream?.body.model).toBe('global.anthropic.claude-sonnet-5-5');
    expect(upstream?.body).not.toHaveProperty('anthropic_version');
    expect(upstream?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(runtime.invocations.at(-1)).toMatchObject({
      modelId: 'global.anthropic.claude-sonnet-5-5',
      status: 200,
      signature: {
        accessKeyId: credentials.accessKeyId,
        region: REGION,
        service: 'bedrock',
        signedHeaders: expect.arrayContaining(['host', 'x-amz-date']),
      },
    });
  });

  it('answers AWS SDK InvokeModel with the model message as the body', async () => {
    next = [text('raw invoke')];
    const output = await aws().send(
      new InvokeModelCommand({
        modelId: 'anthropic.claude-opus-4-1-20250805-v1:0',
        contentType: 'application/json',
        body: invokeBody(),
      }),
    );
    const message = JSON.parse(new TextDecoder().decode(output.body)) as { content: unknown };
    expect(message.content).toEqual([{ type: 'text', text: 'raw invoke' }]);
    expect(output.contentType).toBe('application/json');
    expect(model.requests.at(-1)?.body.model).toBe('anthropic.claude-opus-4-1-20250805-v1:0');
  });

  it.each([
    [429, ThrottlingException, 429],
    [529, ServiceUnavailableException, 503],
    [400, ValidationException, 400],
  ] as const)(
    'turns a model HTTP %i into the exception AWS SDK reads as %o (HTTP %i)',
    async (status, exception, bedrockStatus) => {
      next = [httpError(status, `scripted ${status}`)];
      const failure = await aws()
        .send(new InvokeModelCommand({ modelId: 'anthropic.claude-haiku-4-5', body: invokeBody() }))
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(exception);
      expect(failure).toMatchObject({
        message: `scripted ${status}`,
        $metadata: { httpStatusCode: bedrockStatus },
      });
    },
  );

  it('gives the Bedrock adapter a ModelCallError naming the Bedrock exception after its retries', async () => {
    next = [httpError(429, 'slow down')];
    const failure = await bedrockModel()
      .createMessage({
        model: 'anthropic.claude-haiku-4-5',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelCallError);
    expect(failure).toMatchObject({
      message: 'Bedrock answered HTTP 429 ThrottlingException: slow down',
      details: { status: 429, errorType: 'ThrottlingException' },
    });
  });

  it('refuses an unsigned request with 403 MissingAuthenticationTokenException, without calling the model', async () => {
    const before = model.requests.length;
    const response = await fetch(`${endpoint}/model/anthropic.claude-haiku-4-5/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: invokeBody(),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
    expect(model.requests.length).toBe(before);
  });

  it('refuses a request signed for another service', async () => {
    const response = await fetch(`${endpoint}/model/anthropic.claude-haiku-4-5/invoke`, {
      method: 'POST',
      headers: {
        'x-amz-date': '20261123T190000Z',
        authorization: `AWS4-HMAC-SHA256 Credential=AKID/20261123/${REGION}/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
      },
      body: invokeBody(),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      message: "Credential should be scoped to correct service: 'bedrock', not 's3'",
    });
  });

  it('refuses a body without anthropic_version, or with the model in it, as ValidationException', async () => {
    const client = aws();
    const withoutVersion = await client
      .send(
        new InvokeModelCommand({
          modelId: 'anthropic.claude-haiku-4-5',
          body: JSON.stringify({ max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }),
        }),
      )
      .catch((error: unknown) => error);
    expect(withoutVersion).toBeInstanceOf(ValidationException);
    const withModel = await client
      .send(
        new InvokeModelCommand({ modelId: 'anthropic.claude-haiku-4-5', body: invokeBody({ model: 'x' }) }),
      )
      .catch((error: unknown) => error);
    expect(withModel).toBeInstanceOf(ValidationException);
    expect((withModel as Error).message).toContain('extraneous key [model]');
  });
});
