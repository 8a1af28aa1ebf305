import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { Conversation, type Ledger } from '../lambdas/kernel/model.ts';
import { DynamoChannelStore } from '../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import { CHANNEL_ENV } from '../lambdas/workflows/channel-conversations/env.ts';
import {
  ChannelConversation,
  ChannelMessage,
  ChannelSettingsSchema,
  DEFAULT_CHANNEL_SETTINGS,
  isActive,
} from '../lambdas/workflows/channel-conversations/model.ts';

/**
 * The conversations the console lists: the kernel's (one `META` item each, with a state
 * machine) and channel conversations, which have no state machine and no kernel
 * record: their channel's `ACTIVE` item names the latest one, and each keeps its messages
 * under `CHANCONV#<id>`. Channel conversations are the one workflow the kernel record does not
 * describe, so the sandbox reads them through their own model here, for the console only.
 */

/** A conversation as the console's list shows it. */
export interface ConversationView {
  id: string;
  workflow: string;
  status: string;
  phase: string;
  executionName?: string;
  anchors: { name: string; channel: string; threadTs: string }[];
  agentTurnRunning: boolean;
  createdAt: string;
  updatedAt: string;
  /** The text of its first message from a person (a report, a command, an issue, an alert). */
  opening?: string;
}

/** A stored message as the console's conversation history shows it. */
export interface MessageView {
  ts: string;
  channel: string;
  threadTs?: string;
  senderType: string;
  senderId: string;
  messageType: string;
  text: string;
  receivedAt?: string;
  deliveredInTurn?: number;
}

export const CHANNEL_WORKFLOW = 'channel_conversations';
const CHANNEL_CONVERSATION_PK = 'CHANCONV#';
/** `channel-<channel>-<seconds>-<micros>` (channelConversationId): the channel and ts that started it. */
const CHANNEL_CONVERSATION_ID = /^channel-(.+)-(\d+)-(\d+)$/;

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

function channelSettings() {
  const raw = process.env[CHANNEL_ENV.settings];
  if (!raw) return DEFAULT_CHANNEL_SETTINGS;
  try {
    return ChannelSettingsSchema.parse(JSON.parse(raw));
  } catch {
    return DEFAULT_CHANNEL_SETTINGS;
  }
}

/** Reads the table's conversations: kernel records and channel conversations, newest first. */
export class SandboxConversations {
  /** Channel conversations' own records (their ledgers). */
  private readonly channels: DynamoChannelStore;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    private readonly agentTurnsRunning: ReadonlyMap<string, number>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
    this.channels = new DynamoChannelStore({ client, tableName });
  }

  private readonly doc: DynamoDBDocumentClient;

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
    const active = new Map<string, ChannelConversation>();
    const channelMessages = new Map<string, ChannelMessage[]>();
    // The first message from a person of each kernel conversation: what the console names it by.
    const openings = new Map<string, { ts: string; text: string }>();
    for (const item of items) {
      const key = ItemKey.safeParse(item);
      if (!key.success) continue;
      if (key.data.sk === 'META') {
        const parsed = Conversation.safeParse(item);
        if (parsed.success) views.push(this.kernelView(parsed.data));
      } else if (key.data.sk === 'ACTIVE') {
        const parsed = ChannelConversation.safeParse(item);
        if (parsed.success) active.set(parsed.data.conversationId, parsed.data);
      } else if (key.data.pk.startsWith(KERNEL_PK) && key.data.sk.startsWith('MSG#')) {
        const message = OpeningMessage.safeParse(item);
        if (!message.success || message.data.senderType === 'bot') continue;
        const id = key.data.pk.slice(KERNEL_PK.length);
        const seen = openings.get(id);
        if (seen === undefined || Number(message.data.ts) < Number(seen.ts))
          openings.set(id, { ts: message.data.ts, text: message.data.text });
      } else if (key.data.pk.startsWith(CHANNEL_CONVERSATION_PK) && key.data.sk.startsWith('MSG#')) {
        const parsed = ChannelMessage.safeParse(item);
        if (!parsed.success) continue;
        const id = key.data.pk.slice(CHANNEL_CONVERSATION_PK.length);
        channelMessages.set(id, [...(channelMessages.get(id) ?? []), parsed.data]);
      }
    }
    for (const view of views) {
      const opening = openings.get(view.id);
      if (opening) view.opening = opening.text.slice(0, 500);
    }
    const ids = new Set([...active.keys(), ...channelMessages.keys()]);
    for (const id of ids) {
      const view = this.channelView(id, active.get(id), channelMessages.get(id) ?? []);
      if (view) views.push(view);
    }
    return views.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** A channel conversation with its messages, or undefined when `id` is not one. */
  async channelDetail(
    id: string,
  ): Promise<
    { conversation: ConversationView; messages: MessageView[]; ledger: Partial<Ledger> } | undefined
  > {
    if (!CHANNEL_CONVERSATION_ID.test(id)) return undefined;
    const items = await scanAll(this.doc, this.tableName);
    let record: ChannelConversation | undefined;
    const messages: ChannelMessage[] = [];
    for (const item of items) {
      const key = ItemKey.safeParse(item);
      if (!key.success) continue;
      if (key.data.sk === 'ACTIVE') {
        const parsed = ChannelConversation.safeParse(item);
        if (parsed.success && parsed.data.conversationId === id) record = parsed.data;
      } else if (key.data.pk === `${CHANNEL_CONVERSATION_PK}${id}` && key.data.sk.startsWith('MSG#')) {
        const parsed = ChannelMessage.safeParse(item);
        if (parsed.success) messages.push(parsed.data);
      }
    }
    const conversation = this.channelView(id, record, messages);
    if (!conversation) return undefined;
    const channel = conversation.anchors[0]?.channel ?? '';
    return {
      conversation,
      ledger: await this.channels.getLedger(id),
      messages: messages
        .sort((a, b) => Number(a.ts) - Number(b.ts))
        .map((m) => ({
          ts: m.ts,
          channel,
          ...(m.threadTs ? { threadTs: m.threadTs } : {}),
          senderType: m.isBot ? 'bot' : 'user',
          senderId: m.userId,
          messageType: m.fromHistory ? 'history' : 'message',
          text: m.text,
          receivedAt: m.at,
        })),
    };
  }

  private channelView(
    id: string,
    record: ChannelConversation | undefined,
    messages: readonly ChannelMessage[],
  ): ConversationView | undefined {
    const match = CHANNEL_CONVERSATION_ID.exec(id);
    const channel = record?.channel ?? match?.[1];
    if (!channel || !match) return undefined;
    const startTs = `${match[2]}.${match[3]}`;
    // Messages read from the channel's history came before the conversation: not its times.
    const times = messages
      .filter((m) => m.fromHistory !== true)
      .map((m) => m.at)
      .sort();
    const createdAt = record?.startedAt ?? times[0] ?? new Date(Number(match[2]) * 1000).toISOString();
    const updatedAt = record?.lastActivity ?? times.at(-1) ?? createdAt;
    const attentive = record !== undefined && isActive(record, this.now(), channelSettings().timeoutSeconds);
    const first = channelOpening(messages, startTs);
    return {
      id,
      workflow: CHANNEL_WORKFLOW,
      status: attentive ? 'active' : 'closed',
      phase: attentive ? 'attentive' : 'ended',
      anchors: [{ name: 'channel', channel, threadTs: startTs }],
      agentTurnRunning: false,
      createdAt,
      updatedAt,
      ...(first ? { opening: first.text.slice(0, 500) } : {}),
    };
  }
}

/**
 * What a channel conversation is named by: the message that started it (its id's ts), else its
 * first message from a person. Never a message read from the channel's history: those came
 * before the conversation, about anything.
 */
export function channelOpening(
  messages: readonly ChannelMessage[],
  startTs: string,
): ChannelMessage | undefined {
  const own = messages.filter((m) => !m.isBot && m.fromHistory !== true);
  return own.find((m) => m.ts === startTs) ?? [...own].sort((a, b) => Number(a.ts) - Number(b.ts))[0];
}
