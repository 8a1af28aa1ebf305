import type { SlackMessageEvent, SlackMessageView, StoredSlackMessage } from './types.ts';

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

/**
 * Edits a stored message in place (its author's edit, at `editedTs`) and returns what the
 * workspace's subscribers get for it: the new text, with the previous one in `edit`.
 */
export function editedMessage(
  message: StoredSlackMessage,
  text: string,
  editedTs: string,
): SlackMessageEvent {
  const edit = { previousText: message.text, editor: message.user, editedTs };
  Object.assign(message, { text, blocks: undefined, edited: { user: message.user, ts: editedTs } });
  return {
    channel: message.channel,
    ts: message.ts,
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    user: message.user,
    text,
    edit,
  };
}
