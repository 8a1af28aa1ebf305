import { SlackApiError } from './fake-slack.ts';
import { stringArg } from './method-args.ts';
import type { SlackMethod } from './methods.ts';

/**
 * `chat.delete` as Slack answers it for a bot token: the bot deletes its own messages only
 * (`cant_delete_message` otherwise), an unknown ts is `message_not_found`. A reply goes without
 * a trace; a message with replies stays as Slack's "This message was deleted." so its thread
 * can still be read.
 */

const DELETED_TEXT = 'This message was deleted.';

export const DELETE_METHODS: Record<string, SlackMethod> = {
  'chat.delete': (slack, args) => {
    const channel = slack.channelId(stringArg(args, 'channel'));
    const ts = stringArg(args, 'ts');
    const message = slack.find(channel, ts);
    if (message.user !== slack.botUserId) throw new SlackApiError('cant_delete_message');
    const history = slack.history.get(channel) ?? [];
    const hasReplies = message.thread_ts === undefined && history.some((m) => m.thread_ts === ts);
    if (hasReplies) {
      message.text = DELETED_TEXT;
      message.blocks = undefined;
      message.files = undefined;
    } else history.splice(history.indexOf(message), 1);
    return { channel, ts };
  },
};
