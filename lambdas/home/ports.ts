import type { Conversation } from '../kernel/model.ts';

/** What the App Home reads of the conversations table. */
export interface HomeSource {
  /**
   * Conversations that have not finished, at most `limit`; `truncated` when the search
   * stopped at its bound before reading the whole table.
   */
  unfinished(limit: number): Promise<{ conversations: Conversation[]; truncated: boolean }>;
  /** The text that started a conversation (its first message). */
  subject(conversationId: string): Promise<string | undefined>;
  /** The platform's model spend of one UTC day (`YYYY-MM-DD`), in micro-dollars. */
  spentOn(day: string): Promise<number>;
}

/** What the App Home and the assistant thread do in Slack. */
export interface HomeSlack {
  /** `views.publish` of the Home tab for `user`. */
  publish(user: string, view: Record<string, unknown>): Promise<void>;
  /** A message's permalink; undefined when Slack has none for it. */
  permalink(channel: string, ts: string): Promise<string | undefined>;
  /** `assistant.threads.setSuggestedPrompts` in an assistant thread. */
  suggestPrompts(args: {
    channel: string;
    threadTs: string;
    title: string;
    prompts: readonly { title: string; message: string }[];
  }): Promise<void>;
}
