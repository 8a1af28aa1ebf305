import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { Conversation, type Ledger } from '../lambdas/kernel/model.ts';
import type { SandboxModule, SandboxRecords } from '../statemachines/module-sandbox.ts';
import type { ConversationView, MessageView } from '../statemachines/sandbox-views.ts';

/**
 * The conversations the console lists: the kernel's (one `META` item each, with a state
 * machine), and those a module keeps without a kernel record (channel conversations), which
 * the sandbox reads through the module's `sandboxRecords`, never their format.
 */

const ItemKey = z.object({ pk: z.string(), sk: z.string() });
const KERNEL_PK = 'CONV#';
const OpeningMessage = z.object({ ts: z.string(), senderType: z.string(), text: z.string() });

async function scanAll(doc: DynamoDBDocumentClient, tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Reads the table's conversations: kernel records and the modules' own, newest first. */
export class SandboxConversations {
  private readonly doc: DynamoDBDocumentClient;
  /** The modules' conversations without a kernel record. */
  private readonly records: readonly SandboxRecords[];

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    private readonly agentTurnsRunning: ReadonlyMap<string, number>,
    modules: readonly SandboxModule[],
    private readonly now: () => Date = () => new Date(),
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
    this.records = modules.flatMap((module) => module.sandboxRecords?.({ client, tableName }) ?? []);
  }

  /** The view of a kernel conversation, named by the first of `messages` from a person. */
  kernelView(
    c: Conversation,
    messages: readonly { senderType: string; text: string }[] = [],
  ): ConversationView {
    const first = messages.find((m) => m.senderType !== 'bot');
    return {
      ...(first ? { opening: first.text.slice(0, 500) } : {}),
      id: c.id,
      workflow: c.workflow,
      status: c.status,
      phase: c.phase,
      ...(c.executionName ? { executionName: c.executionName } : {}),
      anchors: Object.values(c.anchors).map(({ name, channel, threadTs }) => ({ name, channel, threadTs })),
      agentTurnRunning: (this.agentTurnsRunning.get(c.id) ?? 0) > 0,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    };
  }

  async list(): Promise<ConversationView[]> {
    const items = await scanAll(this.doc, this.tableName);
    const views: ConversationView[] = [];
    // The first message from a person of each kernel conversation: what the console names it by.
    const openings = new Map<string, { ts: string; text: string }>();
    for (const item of items) {
      const key = ItemKey.safeParse(item);
      if (!key.success) continue;
      if (key.data.sk === 'META') {
        const parsed = Conversation.safeParse(item);
        if (parsed.success) views.push(this.kernelView(parsed.data));
      } else if (key.data.pk.startsWith(KERNEL_PK) && key.data.sk.startsWith('MSG#')) {
        const message = OpeningMessage.safeParse(item);
        if (!message.success || message.data.senderType === 'bot') continue;
        const id = key.data.pk.slice(KERNEL_PK.length);
        const seen = openings.get(id);
        if (seen === undefined || Number(message.data.ts) < Number(seen.ts))
          openings.set(id, { ts: message.data.ts, text: message.data.text });
      }
    }
    for (const view of views) {
      const opening = openings.get(view.id);
      if (opening) view.opening = opening.text.slice(0, 500);
    }
    const now = this.now();
    for (const records of this.records) views.push(...records.list(items, now));
    return views.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** A conversation a module keeps without a kernel record, with its messages; undefined when none is `id`. */
  async recordDetail(
    id: string,
  ): Promise<
    { conversation: ConversationView; messages: MessageView[]; ledger: Partial<Ledger> } | undefined
  > {
    if (this.records.length === 0) return undefined;
    const items = await scanAll(this.doc, this.tableName);
    for (const records of this.records) {
      const detail = await records.detail(id, items, this.now());
      if (detail !== undefined) return detail;
    }
    return undefined;
  }
}
