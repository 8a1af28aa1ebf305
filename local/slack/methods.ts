import { DELETE_METHODS } from './delete.ts';
import { type FakeSlack, SlackApiError, type StoredSlackMessage } from './fake-slack.ts';
import {
  blocksArg,
  booleanArg,
  jsonArg,
  metadataArg,
  optionalString,
  paginate,
  requireString,
  type SlackArgs,
  timeWindow,
} from './method-args.ts';
import { VIEW_METHODS } from './views.ts';

/**
 * The Web API methods the fake answers, over the workspace in `fake-slack.ts`. Arguments
 * arrive as Slack receives them: form fields are strings, and structured fields (`blocks`,
 * `attachments`) are JSON strings; JSON bodies carry them as values.
 */

export type { SlackArgs };
/** What a method may need of the request besides its arguments. */
export interface SlackCallContext {
  /** The API's own base URL, ending in `/api/` (upload URLs point back at it). */
  apiBaseUrl: string;
}
export type SlackMethod = (
  slack: FakeSlack,
  args: SlackArgs,
  context: SlackCallContext,
) => Record<string, unknown>;

/** Path under the API base where `files.uploadV2` posts a file's bytes (`api.ts` serves it). */
export const UPLOAD_PATH = 'files.upload.external/';

export const SLACK_METHODS: Record<string, SlackMethod> = {
  ...VIEW_METHODS,
  ...DELETE_METHODS,
  'auth.test': (slack) => ({
    url: `https://${slack.teamName}.slack.com/`,
    team: slack.teamName,
    user: slack.botName,
    team_id: slack.teamId,
    user_id: slack.botUserId,
    bot_id: slack.botId,
    is_enterprise_install: false,
  }),

  'chat.postMessage': (slack, args) => {
    const text = optionalString(args, 'text');
    const blocks = blocksArg(args);
    if (!text && !blocks && args.attachments === undefined) throw new SlackApiError('no_text');
    const threadTs = optionalString(args, 'thread_ts');
    const metadata = metadataArg(args);
    const message = slack.postAsBot({
      channel: requireString(args, 'channel'),
      text: text ?? '',
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(blocks ? { blocks } : {}),
      ...(metadata ? { metadata } : {}),
      broadcast: booleanArg(args.reply_broadcast),
    });
    return { channel: message.channel, ts: message.ts, message: toApiMessage(slack, message) };
  },

  'chat.update': (slack, args) => {
    const text = optionalString(args, 'text');
    const blocks = blocksArg(args);
    const message = slack.updateAsBot({
      channel: requireString(args, 'channel'),
      ts: requireString(args, 'ts'),
      ...(text === undefined ? {} : { text }),
      ...(blocks ? { blocks } : {}),
    });
    return {
      channel: message.channel,
      ts: message.ts,
      text: message.text,
      message: toApiMessage(slack, message),
    };
  },

  // Slack answers `https://<team>.slack.com/archives/...`; the sandbox has no such site, so
  // the permalink opens the message's thread in the sandbox's own console (console/src/location.ts).
  'chat.getPermalink': (slack, args, context) => {
    const channel = slack.channelId(requireString(args, 'channel'));
    const message = slack.find(channel, requireString(args, 'message_ts'));
    const thread = message.thread_ts ?? message.ts;
    const origin = new URL(context.apiBaseUrl).origin;
    return {
      channel,
      permalink: `${origin}/#${new URLSearchParams({ channel, thread }).toString()}`,
    };
  },

  'chat.postEphemeral': (slack, args) => {
    const text = optionalString(args, 'text');
    const blocks = blocksArg(args);
    if (!text && !blocks && args.attachments === undefined) throw new SlackApiError('no_text');
    const threadTs = optionalString(args, 'thread_ts');
    const ephemeral = slack.postEphemeral({
      channel: requireString(args, 'channel'),
      user: requireString(args, 'user'),
      text: text ?? '',
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(blocks ? { blocks } : {}),
    });
    return { message_ts: ephemeral.message_ts };
  },

  // files.uploadV2 in @slack/web-api 8: getUploadURLExternal, a POST of the bytes to the
  // returned URL, then completeUploadExternal, which shares the files.
  'files.getUploadURLExternal': (slack, args, context) => {
    const fileId = slack.reserveUpload({ filename: requireString(args, 'filename') });
    return { upload_url: `${context.apiBaseUrl}${UPLOAD_PATH}${fileId}`, file_id: fileId };
  },

  'files.completeUploadExternal': (slack, args) => {
    const files = jsonArg(args, 'files');
    if (
      !Array.isArray(files) ||
      files.length === 0 ||
      files.some((file) => typeof file !== 'object' || file === null || typeof file.id !== 'string')
    ) {
      throw new SlackApiError('invalid_arguments', 'files must be a non-empty array of { id, title? }');
    }
    const threadTs = optionalString(args, 'thread_ts');
    const initialComment = optionalString(args, 'initial_comment');
    const message = slack.completeUploads({
      files: files.map((file: { id: string; title?: unknown }) => ({
        id: file.id,
        ...(typeof file.title === 'string' ? { title: file.title } : {}),
      })),
      channel: requireString(args, 'channel_id'),
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(initialComment ? { initial_comment: initialComment } : {}),
    });
    return {
      files: (message.files ?? []).map((file) => ({ id: file.id, title: file.title, name: file.filename })),
    };
  },

  'reactions.add': (slack, args) => {
    slack.addReaction({
      channel: requireString(args, 'channel'),
      timestamp: requireString(args, 'timestamp'),
      name: requireString(args, 'name'),
    });
    return {};
  },

  'conversations.replies': (slack, args) => {
    const channel = slack.channelId(requireString(args, 'channel'));
    const ts = requireString(args, 'ts');
    const [root, ...replies] = slack.thread(channel, ts);
    const window = timeWindow(args);
    const page = paginate(
      replies.filter((message) => window(message.ts)),
      args,
      1000,
    );
    return {
      messages: [root, ...page.items].flatMap((message) =>
        message ? [toApiMessage(slack, message, { metadata: booleanArg(args.include_all_metadata) })] : [],
      ),
      has_more: page.hasMore,
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  'conversations.history': (slack, args) => {
    const channel = slack.channelId(requireString(args, 'channel'));
    const window = timeWindow(args);
    // History is newest first.
    const messages = slack
      .topLevel(channel)
      .filter((message) => window(message.ts))
      .reverse();
    const page = paginate(messages, args, 100);
    return {
      messages: page.items.map((message) =>
        toApiMessage(slack, message, { metadata: booleanArg(args.include_all_metadata) }),
      ),
      has_more: page.hasMore,
      pin_count: 0,
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  'conversations.info': (slack, args) => {
    const channel = slack.channel(requireString(args, 'channel'));
    return {
      channel: {
        id: channel.id,
        name: channel.name,
        name_normalized: channel.name,
        is_channel: true,
        is_group: false,
        is_im: false,
        is_mpim: false,
        is_private: false,
        is_archived: false,
        is_general: channel.name === 'general',
        is_member: true,
        is_ext_shared: false,
        is_shared: false,
        created: 1_700_000_000,
        context_team_id: slack.teamId,
        topic: { value: '', creator: '', last_set: 0 },
        purpose: { value: '', creator: '', last_set: 0 },
      },
    };
  },

  'usergroups.users.list': (slack, args) => ({
    users: slack.userGroupMembers(requireString(args, 'usergroup')),
  }),

  'users.info': (slack, args) => {
    const user = slack.user(requireString(args, 'user'));
    const isBot = user.id === slack.botUserId;
    const realName = user.realName ?? user.name;
    return {
      user: {
        id: user.id,
        team_id: slack.teamId,
        name: user.name,
        real_name: realName,
        deleted: false,
        is_bot: isBot,
        is_app_user: false,
        profile: {
          real_name: realName,
          display_name: user.name,
          ...(isBot ? { bot_id: slack.botId, api_app_id: slack.appId } : {}),
        },
      },
    };
  },
};

/** A stored message as the Web API shows it (thread parents carry their reply summary). */
export function toApiMessage(
  slack: FakeSlack,
  message: StoredSlackMessage,
  options: { metadata?: boolean } = {},
): Record<string, unknown> {
  const replies = message.thread_ts === undefined ? slack.replies(message.channel, message.ts) : [];
  const replyUsers = [...new Set(replies.map((reply) => reply.user))];
  const reactions = [...message.reactions].map(([name, users]) => ({ name, users, count: users.length }));
  return {
    type: 'message',
    ...(message.broadcast ? { subtype: 'thread_broadcast' } : {}),
    ts: message.ts,
    user: message.user,
    text: message.text,
    team: slack.teamId,
    ...(message.bot_id === undefined
      ? {}
      : {
          bot_id: message.bot_id,
          app_id: slack.appId,
          bot_profile: {
            id: message.bot_id,
            app_id: slack.appId,
            name: slack.botName,
            team_id: slack.teamId,
          },
        }),
    ...(message.blocks === undefined ? {} : { blocks: message.blocks }),
    // Slack returns metadata only to `include_all_metadata` (the app's own, with its app id).
    ...(options.metadata && message.metadata
      ? { metadata: { ...message.metadata, app_id: slack.appId } }
      : {}),
    ...(message.thread_ts === undefined
      ? {}
      : { thread_ts: message.thread_ts, parent_user_id: parentUser(slack, message) }),
    ...(replies.length === 0
      ? {}
      : {
          thread_ts: message.ts,
          reply_count: replies.length,
          reply_users_count: replyUsers.length,
          reply_users: replyUsers,
          latest_reply: replies.at(-1)?.ts,
        }),
    ...(message.edited === undefined ? {} : { edited: message.edited }),
    ...(reactions.length === 0 ? {} : { reactions }),
    ...(message.files === undefined
      ? {}
      : {
          files: message.files.map((file) => ({ id: file.id, title: file.title, name: file.filename })),
        }),
  };
}

function parentUser(slack: FakeSlack, message: StoredSlackMessage): string | undefined {
  if (message.thread_ts === undefined) return undefined;
  return slack.find(message.channel, message.thread_ts).user;
}
