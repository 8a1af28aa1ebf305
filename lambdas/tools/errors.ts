/**
 * Errors of calling tools. Each sets `name`, which is what callers (the agent runtime, a
 * Step Functions Catch around AgentTurn) match on.
 */

/** The model asked for a tool that has no function configured: the agent runtime answers it with an `is_error` tool result. */
export class UnknownToolError extends Error {
  override readonly name = 'UnknownToolError';
  constructor(
    readonly tool: string,
    readonly known: readonly string[],
  ) {
    super(
      `unknown tool ${JSON.stringify(tool)}${known.length > 0 ? ` (known tools: ${known.join(', ')})` : ' (no tools are configured)'}`,
    );
  }
}

/**
 * The tool's Lambda failed (it threw, timed out or returned something that is not a
 * `ToolResult`): an infrastructure failure, not the model's mistake. Carries the Lambda's
 * `errorType` when it reported one.
 */
export class ToolFailedError extends Error {
  override readonly name = 'ToolFailedError';
  constructor(
    readonly tool: string,
    message: string,
    readonly errorType?: string,
    options?: { cause?: unknown },
  ) {
    super(`tool ${tool} failed: ${message}`, options);
  }
}

/** `TOOL_FUNCTIONS` is not a JSON object of tool name -> function name: a deployment defect. */
export class InvalidToolConfigurationError extends Error {
  override readonly name = 'InvalidToolConfigurationError';
  constructor(
    readonly variable: string,
    options: { cause: unknown },
  ) {
    super(`${variable} is not a JSON object of tool name -> Lambda function name`, options);
  }
}
