import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { DynamoChannelStore } from '../lambdas/workflows/channel-conversations/adapters/dynamo-channel-store.ts';
import { CHANNEL_ENV } from '../lambdas/workflows/channel-conversations/env.ts';
import {
  ChannelConversation,
  ChannelMessage,
  ChannelSettingsSchema,
  DEFAULT_CHANNEL_SETTINGS,
  isActive,
} from '../lambdas/workflows/channel-conversations/model.ts';
import type { SandboxRecords } from './module-sandbox.ts';
import type { ConversationView, MessageView } from './sandbox-views.ts';

/**
 * Channel conversations as the sandbox's console lists and shows them (`sandboxRecords`):
 * they have no state machine and no kernel record: their channel's `ACTIVE` item names the
 * latest one, and each keeps its messages under `CHANCONV#<id>` and its ledger in its own item.
 */

const CHANNEL_WORKFLOW = 'channel_conversations';
const CHANNEL_CONVERSATION_PK = 'CHANCONV#';
/** `channel-<channel>-<seconds>-<micros>` (channelConversationId): the channel and ts that started it. */
const CHANNEL_CONVERSATION_ID = /^channel-(.+)-(\d+)-(\d+)$/;
const ItemKey = z.object({ pk: z.string(), sk: z.string() });

function channelSettings() {
  const raw = process.env[CHANNEL_ENV.settings];
  if (!raw) return DEFAULT_CHANNEL_SETTINGS;
  try {
    return ChannelSettingsSchema.parse(JSON.parse(raw));
  } catch {
    return DEFAULT_CHANNEL_SETTINGS;
  }
}

/** The channel conversations of the table `client` reaches. */
export function channelRecords(table: { client: DynamoDBClient; tableName: string }): SandboxRecords {
  const channels = new DynamoChannelStore(table);
  return {
    list(items, now) {
      const active = new Map<string, ChannelConversation>();
      const messages = new Map<string, ChannelMessage[]>();
      for (const item of items) {
        const key = ItemKey.safeParse(item);
        if (!key.success) continue;
        if (key.data.sk === 'ACTIVE') {
          const parsed = ChannelConversation.safeParse(item);
          if (parsed.success) active.set(parsed.data.conversationId, parsed.data);
        } else if (key.data.pk.startsWith(CHANNEL_CONVERSATION_PK) && key.data.sk.startsWith('MSG#')) {
          const parsed = ChannelMessage.safeParse(item);
          if (!parsed.success) continue;
          const id = key.data.pk.slice(CHANNEL_CONVERSATION_PK.length);
          messages.set(id, [...(messages.get(id) ?? []), parsed.data]);
        }
      }
      return [...new Set([...active.keys(), ...messages.keys()])].flatMap((id) => {
        const view = channelView(id, active.get(id), messages.get(id) ?? [], now);
        return view ? [view] : [];
      });
    },
    async detail(id, items, now) {
      if (!CHANNEL_CONVERSATION_ID.test(id)) return undefined;
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
      const conversation = channelView(id, record, messages, now);
      if (!conversation) return undefined;
      const channel = conversation.anchors[0]?.channel ?? '';
      return {
        conversation,
        ledger: await channels.getLedger(id),
        messages: messages
          .sort((a, b) => Number(a.ts) - Number(b.ts))
          .map(
            (m): MessageView => ({
              ts: m.ts,
              channel,
              ...(m.threadTs ? { threadTs: m.threadTs } : {}),
              senderType: m.isBot ? 'bot' : 'user',
              senderId: m.userId,
              messageType: m.fromHistory ? 'history' : 'message',
              text: m.text,
              receivedAt: m.at,
            }),
          ),
      };
    },
  };
}

function channelView(
  id: string,
  record: ChannelConversation | undefined,
  messages: readonly ChannelMessage[],
  now: Date,
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
  const attentive = record !== undefined && isActive(record, now, channelSettings().timeoutSeconds);
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

/**
 * What a channel conversation is named by: the message that started it (its id's ts), else its
 * first message from a person. Never a message read from the channel's history: those came
 * before the conversation, about anything.
 */
function channelOpening(messages: readonly ChannelMessage[], startTs: string): ChannelMessage | undefined {
  const own = messages.filter((m) => !m.isBot && m.fromHistory !== true);
  return own.find((m) => m.ts === startTs) ?? [...own].sort((a, b) => Number(a.ts) - Number(b.ts))[0];
}
