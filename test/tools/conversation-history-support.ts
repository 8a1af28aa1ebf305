import { afterAll, beforeAll } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { SenderType, StoredMessage } from '../../lambdas/kernel/model.ts';
import { readConversationHistory } from '../../lambdas/tools/conversation-history.ts';
import type { ToolResult } from '../../lambdas/tools/invocation.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';

/**
 * The stored conversations the get_bug_conversations tests read: a dynalite table for the file,
 * messages as the kernel stores them, and history lines as the tool writes them
 * (conversation-history.test.ts and conversation-history-pages.test.ts).
 */

/** The file's conversation table: started in its `beforeAll`, closed in its `afterAll`. */
export function historyTable() {
  const table = {} as { db: Awaited<ReturnType<typeof startDynalite>>; store: DynamoConversationStore };
  beforeAll(async () => {
    table.db = await startDynalite();
    table.store = new DynamoConversationStore({ client: table.db.client, tableName: table.db.tableName });
  });
  afterAll(async () => table.db.close());

  async function createConversation(id: string, messages: StoredMessage[]): Promise<void> {
    await table.store.createConversation(
      bugConversation(id, { createdAt: '2015-11-21T09:14:03Z', updatedAt: '2015-11-21T09:14:03Z' }),
    );
    // Stored out of order on purpose: the history follows Slack order, not arrival order.
    for (const m of [...messages].reverse()) await table.store.putMessage(m);
  }

  function read(conversationId: string, args: Record<string, unknown>): Promise<ToolResult> {
    return readConversationHistory(
      { bug_id: conversationId, ...args },
      { conversationId },
      { store: table.store },
    );
  }

  return { table, createConversation, read };
}

/** 2015-11-21T09:14:03Z plus `offsetSeconds`, as a Slack ts. */
export function slackTs(offsetSeconds: number, micros = 0): string {
  const seconds = Date.UTC(2015, 10, 21, 9, 14, 3) / 1000 + offsetSeconds;
  return `${seconds}.${String(micros).padStart(6, '0')}`;
}

/** A message of `senderType` as the kernel stores it, in the channel that sender writes in. */
export function message(
  conversationId: string,
  ts: string,
  senderType: SenderType,
  text: string,
  extra: Partial<StoredMessage> = {},
): StoredMessage {
  const senderId = senderType === 'bot' ? 'U_BOT' : senderType === 'reporter' ? 'U_REPORTER' : 'U_DEV';
  return {
    conversationId,
    ts,
    channel: senderType === 'reporter' ? 'C_BUGS' : 'C_SUMMARIES',
    senderType,
    senderId,
    messageType: senderType === 'bot' ? 'bot' : 'message',
    text,
    receivedAt: '2015-11-21T09:14:03Z',
    ...extra,
  };
}

/** A history line as the tool writes it: the time, then the message as one JSON object. */
export function line(time: string, fields: Record<string, unknown>): string {
  return `[${time}] ${JSON.stringify(fields)}`;
}
export const reporter = { from: 'U_REPORTER', role: 'reporter', verified: true };
export const developer = { from: 'U_DEV', role: 'developer', verified: true };
export const bot = { from: 'U_BOT', role: 'bot', verified: true };

/** The text of a result that must be ok. */
export function output(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected ok, got error: ${result.error}`);
  return result.output;
}
