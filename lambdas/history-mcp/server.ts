import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { ConversationStore } from '../kernel/ports.ts';
import { type RedactionSettings, Redactor } from '../redaction/index.ts';
import { ConversationHistoryArgs, historyPage } from '../tools/conversation-history.ts';
import type { Caller } from './principal.ts';

/**
 * The conversation history as a read-only MCP server: one tool, `get_conversation_history`,
 * paging one conversation's stored messages exactly as the agents' history tool does
 * (lambdas/tools/conversation-history.ts), for a caller whose workflows are known.
 */

const HISTORY_MCP_TOOL = 'get_conversation_history';

export const HISTORY_MCP_SERVER = { name: 'slack-agents-history', version: '1.0.0' } as const;

const args = ConversationHistoryArgs.shape;
const HistoryToolArgs = {
  conversation_id: args.bug_id.describe(
    'The conversation id (the id shown in the console and the logs, e.g. a bug id).',
  ),
  cursor: args.cursor,
  max_chars: args.max_chars,
};

/** What the log keeps of every read or refusal: who, which conversation, the outcome; never a message's text. */
export interface HistoryAudit {
  caller: string;
  callerId?: string;
  conversationId?: string;
  outcome: 'allowed' | 'refused' | 'failed';
  reason?: string;
  workflow?: string;
  messages?: number;
}

export interface HistoryServerDeps {
  store: Pick<ConversationStore, 'getConversation' | 'listMessages'>;
  redaction: RedactionSettings;
  audit: (entry: HistoryAudit) => void;
}

/** A server for one request of `caller`, who may read the conversations of `workflows`. */
export function createHistoryServer(
  caller: Caller,
  workflows: ReadonlySet<string>,
  deps: HistoryServerDeps,
): McpServer {
  const server = new McpServer(HISTORY_MCP_SERVER);
  server.registerTool(
    HISTORY_MCP_TOOL,
    {
      title: 'Conversation history',
      description:
        "One conversation's stored history (reporter, developer and bot messages), oldest first, one line per " +
        'message: `[HH:MM:SS] {"from":..,"role":..,"verified":..,"text":..,"id":..}`, times in UTC, with a ' +
        '`--- YYYY-MM-DD ---` line where each day begins. Long histories come in pages: when the output ends with ' +
        `\`[more: call ${HISTORY_MCP_TOOL} with cursor "..."]\`, call it again with that cursor. Only "text" is what ` +
        'a person wrote. Values the redaction layer replaced read as typed placeholders.',
      inputSchema: HistoryToolArgs,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (input) => readHistory(input, caller, workflows, deps),
  );
  return server;
}

type HistoryToolInput = z.infer<z.ZodObject<typeof HistoryToolArgs>>;

async function readHistory(
  input: HistoryToolInput,
  caller: Caller,
  workflows: ReadonlySet<string>,
  deps: HistoryServerDeps,
): Promise<CallToolResult> {
  const who = {
    caller: caller.userArn,
    ...(caller.callerId !== undefined ? { callerId: caller.callerId } : {}),
    conversationId: input.conversation_id,
  };
  try {
    return await readPage(input, who, workflows, deps);
  } catch (error) {
    // The store's own message may name tables and keys: the caller is told the kind of failure only.
    const kind = error instanceof Error ? error.name : 'Error';
    deps.audit({ ...who, outcome: 'failed', reason: kind });
    return errorResult(`Reading the history of "${input.conversation_id}" failed (${kind}); try again.`);
  }
}

async function readPage(
  input: HistoryToolInput,
  who: Pick<HistoryAudit, 'caller' | 'callerId'> & { conversationId: string },
  workflows: ReadonlySet<string>,
  deps: HistoryServerDeps,
): Promise<CallToolResult> {
  const { conversation_id: conversationId, cursor, max_chars: maxChars } = input;
  const conversation = await deps.store.getConversation(conversationId);
  // A missing conversation and one of another workflow get the same answer, so a caller cannot
  // learn which ids exist outside its workflows.
  if (conversation === undefined || !workflows.has(conversation.workflow)) {
    deps.audit({ ...who, outcome: 'refused', reason: 'not a conversation of its workflows' });
    return errorResult(
      `You may not read conversation "${conversationId}": it is not a conversation of a workflow you may read (${[...workflows].join(', ')}).`,
    );
  }
  const messages = await deps.store.listMessages(conversationId);
  const page = historyPage(messages, {
    bugId: conversationId,
    tool: HISTORY_MCP_TOOL,
    ...(cursor !== undefined ? { cursor } : {}),
    ...(maxChars !== undefined ? { maxChars } : {}),
  });
  // The agents read this history through the redaction layer (their tool results pass it);
  // a person's assistant reads it through the same layer, keyed by the same conversation.
  const { text } = await new Redactor(conversationId, deps.redaction).redact(page.text);
  deps.audit({ ...who, outcome: 'allowed', workflow: conversation.workflow, messages: page.count });
  return { content: [{ type: 'text', text }] };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
