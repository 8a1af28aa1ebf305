import type { LambdaFunctionURLEventWithIAMAuthorizer } from 'aws-lambda';
import { historyReaders } from '../history-mcp/config.ts';
import {
  type FunctionUrlResponse,
  type HistoryMcpDeps,
  serveHistoryMcp,
} from '../history-mcp/function-url.ts';
import { redactionSettings } from '../redaction/index.ts';
import { createLogger } from '../shared/logger.ts';
import { conversationStore } from './conversation-store.ts';

const logger = createLogger('history-mcp');

/** Built on the first request, not at import, so the sandbox can load this module before it sets the environment. */
let deps: HistoryMcpDeps | undefined;

/** The history MCP server's Function URL (docs/mcp.md, "The history as an MCP server"). */
export async function handler(event: LambdaFunctionURLEventWithIAMAuthorizer): Promise<FunctionUrlResponse> {
  deps ??= {
    store: conversationStore(),
    readers: historyReaders(),
    redaction: redactionSettings(),
    audit: (entry) => logger.info(`history ${entry.outcome}`, { ...entry }),
  };
  return serveHistoryMcp(event, deps);
}
