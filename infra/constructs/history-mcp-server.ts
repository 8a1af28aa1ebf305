import { CfnOutput } from 'aws-cdk-lib';
import { FunctionUrlAuthType, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { HISTORY_READERS_ENV, type HistoryServerSettings } from '../../lambdas/history-mcp/config.ts';
import type { FunctionSpec } from '../../statemachines/kernel-functions.ts';
import type { ConversationsTable } from './conversations-table.ts';
import { createKernelFunction, type KernelFunction, type KernelFunctionProps } from './kernel-function.ts';

/** The function serving the conversation history as a read-only MCP server. */
export const HISTORY_MCP_FUNCTION = {
  entry: 'lambdas/handlers/history-mcp.ts',
  timeoutSeconds: 15,
  memoryMb: 256,
} as const satisfies FunctionSpec;

/** The stack output naming the server's URL. */
const HISTORY_MCP_OUTPUT = 'HistoryMcpUrl';

export interface HistoryMcpServerProps {
  /** The conversations table, which the server only reads. */
  readonly table: ConversationsTable;
  readonly settings: HistoryServerSettings;
  readonly functionProps: KernelFunctionProps;
}

/**
 * The conversation history as a read-only MCP server (docs/mcp.md): a function behind a Function
 * URL with `AuthType: AWS_IAM`, so only requests signed by a principal of this account (or one a
 * resource policy admits) reach it, and the function decides which conversations each may read.
 * Its role reads the conversations table and writes nothing.
 */
export class HistoryMcpServer extends Construct {
  readonly function: KernelFunction;
  readonly url: string;

  constructor(scope: Construct, id: string, props: HistoryMcpServerProps) {
    super(scope, id);
    this.function = createKernelFunction(scope, 'HistoryMcp', HISTORY_MCP_FUNCTION, {
      ...props.functionProps,
      environment: {
        ...props.functionProps.environment,
        [HISTORY_READERS_ENV]: JSON.stringify(props.settings.readers),
      },
    });
    props.table.grantReadData(this.function);
    const functionUrl = this.function.addFunctionUrl({
      authType: FunctionUrlAuthType.AWS_IAM,
      invokeMode: InvokeMode.BUFFERED,
    });
    this.url = functionUrl.url;
    new CfnOutput(scope, HISTORY_MCP_OUTPUT, {
      value: functionUrl.url,
      description:
        'The conversation history as a read-only MCP server (Streamable HTTP, SigV4-signed for service lambda; docs/mcp.md)',
    });
  }
}
