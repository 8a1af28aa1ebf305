import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../read-body.ts';
import { localArn } from '../template.ts';
import { LambdaFunctionNotFoundError } from './errors.ts';

/**
 * Lambda's Invoke API (REST JSON) over the sandbox's in-process handlers, so code that calls
 * a function (AgentTurn calling its tools) uses the real `@aws-sdk/client-lambda` through
 * `AWS_ENDPOINT_URL_LAMBDA`:
 *
 * - `POST /2015-03-31/functions/{FunctionName}/invocations`; the name may be a name, a
 *   partial or full ARN, with or without a qualifier (which is ignored: every function is `$LATEST`).
 * - `X-Amz-Invocation-Type`: `RequestResponse` (200 with the handler's JSON result), `Event`
 *   (202 at once, the handler runs in the background) or `DryRun` (204).
 * - A handler that throws: 200 with `X-Amz-Function-Error: Unhandled` and the Node runtime's
 *   `{"errorType", "errorMessage", "trace"}`, so the SDK reports `FunctionError` as Lambda's does.
 * - An unknown function: 404 `ResourceNotFoundException`, which the SDK raises as that class.
 *
 * Requests are not signature-checked.
 */

/** Runs a function's handler with an event; rejects with `LambdaFunctionNotFoundError` for an unknown name. */
type InvokeFunction = (functionName: string, payload: unknown) => Promise<unknown>;

export type LambdaRequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body?: string,
) => Promise<void>;

export interface LambdaApiOptions {
  /** Whether a function exists, checked before anything runs (so `Event` and `DryRun` answer 404 too). */
  exists?: (functionName: string) => boolean;
  /** Where failures of `Event` invocations go (nobody waits for them). @default console.error */
  onEventError?: (functionName: string, error: unknown) => void;
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** Lambda's synchronous payload limit, for requests and responses alike. */
const PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;

/** Whether a request is a Lambda Invoke (the sandbox server routes by path: Lambda sends no `x-amz-target`). */
export function isLambdaInvokeRequest(req: IncomingMessage): boolean {
  return req.method === 'POST' && INVOKE_PATH.test(pathOf(req));
}

/** The function a `FunctionName` names: `my-fn`, `my-fn:alias`, `123456789012:function:my-fn`, or a full ARN -> `my-fn`. */
function functionNameOf(functionName: string): string {
  const match = /(?:^|:)function:([^:]+)/.exec(functionName);
  if (match?.[1]) return match[1];
  return functionName.split(':')[0] ?? functionName;
}

export function createLambdaApi(
  invoke: InvokeFunction,
  options: LambdaApiOptions = {},
): LambdaRequestHandler {
  const onEventError =
    options.onEventError ??
    ((name: string, error: unknown) => console.error(`[lambda] event invocation of ${name} failed`, error));

  return async (req, res, body) => {
    const text = body ?? (await readBody(req));
    const match = INVOKE_PATH.exec(pathOf(req));
    if (req.method !== 'POST' || !match) {
      return sendError(
        res,
        404,
        'UnknownOperationException',
        `The Lambda emulator serves only Invoke, not ${req.method} ${pathOf(req)}.`,
      );
    }
    let requested: string;
    try {
      requested = decodeURIComponent(match[1] ?? '');
    } catch {
      return sendError(res, 400, 'InvalidParameterValueException', `Invalid function name: ${match[1]}`);
    }
    const name = functionNameOf(requested);
    if (options.exists && !options.exists(name)) return sendNotFound(res, name);

    const invocationType = header(req, 'x-amz-invocation-type') ?? 'RequestResponse';
    if (invocationType !== 'RequestResponse' && invocationType !== 'Event' && invocationType !== 'DryRun') {
      return sendError(
        res,
        400,
        'InvalidParameterValueException',
        `Unsupported invocation type: ${invocationType}`,
      );
    }
    if (Buffer.byteLength(text) > PAYLOAD_LIMIT_BYTES) {
      return sendError(
        res,
        413,
        'RequestTooLargeException',
        `Request must be smaller than ${PAYLOAD_LIMIT_BYTES} bytes for the InvokeFunction operation`,
      );
    }
    let payload: unknown;
    try {
      // Lambda hands an empty payload to the handler as an empty object.
      payload = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      return sendError(
        res,
        400,
        'InvalidRequestContentException',
        `Could not parse request body into json: ${(error as Error).message}`,
      );
    }

    if (invocationType === 'DryRun') return void res.writeHead(204, headers()).end();
    if (invocationType === 'Event') {
      res.writeHead(202, headers()).end();
      invoke(name, payload).catch((error: unknown) => onEventError(name, error));
      return;
    }

    let result: unknown;
    try {
      result = await invoke(name, payload);
    } catch (error) {
      if (error instanceof LambdaFunctionNotFoundError) return sendNotFound(res, name);
      return sendFunctionError(res, unhandled(error));
    }
    const resultText = JSON.stringify(result) ?? 'null';
    if (Buffer.byteLength(resultText) > PAYLOAD_LIMIT_BYTES) {
      return sendFunctionError(res, {
        errorType: 'Function.ResponseSizeTooLarge',
        errorMessage: `Response payload size exceeded maximum allowed payload size (${PAYLOAD_LIMIT_BYTES} bytes).`,
      });
    }
    res.writeHead(200, executedHeaders()).end(resultText);
  };
}

/** The Node.js runtime's report of an error the handler threw. */
function unhandled(error: unknown): { errorType: string; errorMessage: string; trace: string[] } {
  if (error instanceof Error) {
    return { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

function sendFunctionError(res: ServerResponse, report: { errorType: string; errorMessage: string }): void {
  res
    .writeHead(200, { ...executedHeaders(), 'x-amz-function-error': 'Unhandled' })
    .end(JSON.stringify(report));
}

function sendNotFound(res: ServerResponse, name: string): void {
  sendError(
    res,
    404,
    'ResourceNotFoundException',
    `Function not found: ${localArn('lambda', `function:${name}`)}`,
  );
}

/** Lambda's error shape: the SDK reads the code from `x-amzn-errortype`. */
function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  res
    .writeHead(status, { ...headers(), 'content-type': 'application/json', 'x-amzn-errortype': code })
    .end(JSON.stringify({ Type: 'User', message }));
}

function headers(): Record<string, string> {
  return { 'x-amzn-requestid': randomUUID() };
}

/** Headers of an answer the function itself gave (a result or its error). */
function executedHeaders(): Record<string, string> {
  return { ...headers(), 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}
