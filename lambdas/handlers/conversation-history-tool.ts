import * as z from 'zod';
import { redactedForLog } from '../redaction/index.ts';
import { createLogger } from '../shared/logger.ts';
import { CONVERSATION_HISTORY_TOOL, readConversationHistory } from '../tools/conversation-history.ts';
import { ToolInvocation } from '../tools/invocation.ts';
import { taskHandler } from './task-handler.ts';
import { kernelDeps } from './wiring.ts';

/**
 * The `get_bug_conversations` tool's Lambda, invoked by AgentTurn with a `ToolInvocation`.
 * Bad arguments from the model are an `ok: false` result; an invocation that is not a
 * `ToolInvocation` is a wiring defect (`InvalidTaskInputError`); store failures throw, so the
 * caller sees a function error it may retry.
 */
export const handler = taskHandler({
  task: 'ConversationHistoryTool',
  // A function wired to another tool's name is a deployment defect, not something to answer.
  schema: ToolInvocation.extend({ tool: z.literal(CONVERSATION_HISTORY_TOOL) }),
  logger: createLogger('conversation-history-tool'),
  run: (invocation) =>
    readConversationHistory(invocation.args, { conversationId: invocation.conversationId }, kernelDeps()),
  summary: async (invocation, result) => ({
    tool: invocation.tool,
    ok: result.ok,
    ...(result.ok
      ? { chars: result.output.length }
      : { error: await redactedForLog(result.error, invocation.conversationId) }),
  }),
});
