import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ToolInvoker } from '../agents/contract.ts';
import { ENV, requireEnv } from '../shared/env.ts';
import { InvalidToolConfigurationError, ToolFailedError, UnknownToolError } from '../tools/errors.ts';
import { type ToolInvocation, ToolResult } from '../tools/invocation.ts';

/** What the model reads when a tool answers `ok: false` (its arguments were wrong, say). */
const TOOL_ERROR_PREFIX = 'Tool error: ';

export interface LambdaToolInvokerOptions {
  /**
   * The Lambda client. It honours `AWS_ENDPOINT_URL_LAMBDA`, which is how the sandbox points it at itself.
   * @default a `LambdaClient` from the environment, created at the first call
   */
  client?: LambdaClient;
  /**
   * Tool name -> Lambda function name (or ARN).
   * @default the JSON object in `TOOL_FUNCTIONS`, read at the first call
   */
  functions?: Record<string, string>;
}

export interface LambdaToolInvoker extends ToolInvoker {
  /** The tools that have a function configured. */
  tools(): string[];
}

/**
 * Calls agent tools as Lambdas: a synchronous Invoke (RequestResponse) with a
 * `ToolInvocation`, and the `ToolResult` decoded from the answer.
 *
 * - `ok: true` returns the tool's output.
 * - `ok: false` (the model's arguments were wrong, or it asked for something the tool
 *   refuses) returns the error as text prefixed with `Tool error: `: the model reads it and can
 *   correct its call, and the turn goes on. It is not thrown, because nothing failed.
 * - A function error (the tool threw, or timed out) or an answer that is not a `ToolResult`
 *   throws `ToolFailedError`; SDK errors (throttling after the SDK's retries, a missing
 *   function) are rethrown as they are.
 * - A tool with no configured function throws `UnknownToolError`, which the agent runtime
 *   turns into an `is_error` result.
 */
export function createLambdaToolInvoker(options: LambdaToolInvokerOptions = {}): LambdaToolInvoker {
  // Read lazily, not at import: the sandbox loads handler modules before it sets their environment.
  let client = options.client;
  let functions = options.functions;
  const configured = () => {
    functions ??= readToolFunctions();
    return functions;
  };

  return {
    tools: () => Object.keys(configured()),
    async invoke(tool, args, context) {
      const map = configured();
      const functionName = Object.hasOwn(map, tool) ? map[tool] : undefined;
      if (functionName === undefined) throw new UnknownToolError(tool, Object.keys(map));
      const invocation: ToolInvocation = {
        tool,
        args,
        conversationId: context.conversationId,
        ...(context.toolContext === undefined ? {} : { context: context.toolContext }),
      };
      // Imported at the first tool call: a turn that calls no tool does not load the Lambda SDK.
      const sdk = await import('@aws-sdk/client-lambda');
      client ??= new sdk.LambdaClient({});
      const response = await client.send(
        new sdk.InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'RequestResponse',
          Payload: new TextEncoder().encode(JSON.stringify(invocation)),
        }),
      );
      const text = response.Payload ? new TextDecoder().decode(response.Payload) : '';
      if (response.FunctionError !== undefined) throw functionError(tool, text);
      const result = decodeResult(tool, text);
      return result.ok ? result.output : `${TOOL_ERROR_PREFIX}${result.error}`;
    },
  };
}

function readToolFunctions(): Record<string, string> {
  const raw = requireEnv(ENV.toolFunctions);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (cause) {
    throw new InvalidToolConfigurationError(ENV.toolFunctions, { cause });
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((name) => typeof name === 'string' && name !== '')
  ) {
    throw new InvalidToolConfigurationError(ENV.toolFunctions, { cause: value });
  }
  return value as Record<string, string>;
}

/** Lambda reports a function error as `{"errorType", "errorMessage", "trace"}` in the payload. */
function functionError(tool: string, text: string): ToolFailedError {
  try {
    const { errorType, errorMessage } = JSON.parse(text) as { errorType?: unknown; errorMessage?: unknown };
    if (typeof errorMessage === 'string') {
      return new ToolFailedError(tool, errorMessage, typeof errorType === 'string' ? errorType : undefined);
    }
  } catch {
    // Not JSON: report the payload as it came.
  }
  return new ToolFailedError(tool, text || 'the function failed without an error payload');
}

function decodeResult(tool: string, text: string): ToolResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ToolFailedError(tool, 'its function answered something that is not JSON', undefined, { cause });
  }
  const parsed = ToolResult.safeParse(value);
  if (!parsed.success) {
    throw new ToolFailedError(tool, 'its function answered something that is not a tool result', undefined, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
