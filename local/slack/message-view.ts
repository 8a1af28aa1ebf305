import type { SlackMessageView, StoredSlackMessage } from './types.ts';

/** A stored message as `messages()` lists it (what `conversations.history` and the console show). */
export function messageView(message: StoredSlackMessage): SlackMessageView {
  return {
    ts: message.ts,
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    ...(message.bot_id === undefined ? { user: message.user } : { user: message.user, bot: true as const }),
    text: message.text,
    ...(message.blocks === undefined ? {} : { blocks: message.blocks }),
    ...(message.files === undefined ? {} : { files: message.files }),
  };
}
