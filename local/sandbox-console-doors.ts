import type { ServerResponse } from 'node:http';
import { parseObject, send } from './json-door.ts';
import type { SandboxRouteDeps } from './sandbox-routes.ts';
import type { EphemeralMessage, FakeSlack } from './slack/fake-slack.ts';
import { postSignedForm } from './slack/sign.ts';
import { fakeAssistantThread } from './slack/streams.ts';
import { viewsOf } from './slack/views.ts';

/**
 * What Slack shows a person that the channel's history does not hold, for the console: the
 * ephemeral messages sent to them ("only visible to you"), slash commands typed in a composer
 * (sent to the ingress signed, as Slack sends a command, and its answer shown to them alone),
 * a modal closed without submitting, and an assistant thread's status.
 *
 *   GET  /sandbox/slack/ephemerals?user=U&channel=C[&thread_ts=T]  U's ephemerals there
 *   POST /sandbox/slack/command       {channel, user, command, text}: a slash command
 *   POST /sandbox/slack/command-response?channel=C&user=U  a later answer to it (its response_url)
 *   POST /sandbox/slack/views/close   {view_id}: the modal's Cancel (Slack sends nothing unless
 *                                     the view asked for `notify_on_close`)
 *   GET  /sandbox/slack/assistant/status?channel=C&thread_ts=T  the thread's status and title
 */

/** A message the console lists, as `/sandbox/slack/messages` gives them, marked as ephemeral. */
export interface EphemeralView {
  ts: string;
  thread_ts?: string;
  user: string;
  bot: true;
  ephemeral: true;
  text: string;
  blocks?: unknown[];
}

/** `user`'s ephemerals in `channel`: at its top level, or in the thread of `threadTs`. */
export function ephemeralsFor(
  ephemerals: readonly EphemeralMessage[],
  query: { user: string; channel: string; threadTs?: string; botUserId: string },
): EphemeralView[] {
  return ephemerals
    .filter(
      (e) =>
        e.user === query.user &&
        e.channel === query.channel &&
        (query.threadTs === undefined ? e.thread_ts === undefined : e.thread_ts === query.threadTs),
    )
    .map((e) => ({
      ts: e.message_ts,
      ...(e.thread_ts === undefined ? {} : { thread_ts: e.thread_ts }),
      user: query.botUserId,
      bot: true as const,
      ephemeral: true as const,
      text: e.text,
      ...(e.blocks === undefined ? {} : { blocks: e.blocks }),
    }));
}

/** The form Slack posts for a slash command typed by `user` in `channel`. */
export function slashCommandForm(input: {
  teamId: string;
  appId: string;
  channel: { id: string; name: string };
  user: { id: string; name: string };
  command: string;
  text: string;
  triggerId: string;
  responseUrl: string;
}): string {
  return new URLSearchParams({
    token: 'sandbox-verification-token',
    team_id: input.teamId,
    channel_id: input.channel.id,
    channel_name: input.channel.name,
    user_id: input.user.id,
    user_name: input.user.name,
    command: input.command,
    text: input.text,
    api_app_id: input.appId,
    response_url: input.responseUrl,
    trigger_id: input.triggerId,
  }).toString();
}

/** A command's immediate answer, as Slack reads the body of the app's HTTP response. */
interface CommandAnswer {
  response_type?: string;
  text?: string;
  blocks?: unknown[];
}

/** Where a command's `response_url` points: its later answers, shown like its first. */
const RESPONSE_PATH = '/sandbox/slack/command-response';

/**
 * Slack shows a command's answer to the person who typed it (ephemeral, the default) or to the
 * channel (`in_channel`); an answer without text or blocks shows nothing.
 */
function showAnswer(workspace: FakeSlack, channel: string, user: string, answer: CommandAnswer): void {
  if (!answer.text && !answer.blocks) return;
  const shown = { channel, text: answer.text ?? '', ...(answer.blocks ? { blocks: answer.blocks } : {}) };
  if (answer.response_type === 'in_channel') workspace.postAsBot(shown);
  else workspace.postEphemeral({ ...shown, user });
}

export async function routeConsoleDoors(
  deps: SandboxRouteDeps,
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  res: ServerResponse,
): Promise<boolean> {
  const workspace = deps.slack.workspace;
  if (method === 'GET' && path === '/sandbox/slack/ephemerals') {
    const user = query.get('user');
    const channel = query.get('channel');
    if (!user || !channel) return send(res, 400, { error: 'user and channel are required' });
    let channelId: string;
    try {
      channelId = workspace.channelId(channel);
    } catch (error) {
      return send(res, 404, { error: (error as Error).message });
    }
    const threadTs = query.get('thread_ts') ?? undefined;
    return send(res, 200, {
      messages: ephemeralsFor(workspace.ephemerals(), {
        user,
        channel: channelId,
        ...(threadTs ? { threadTs } : {}),
        botUserId: deps.botUserId,
      }),
    });
  }
  if (method === 'GET' && path === '/sandbox/slack/assistant/status') {
    const channel = query.get('channel');
    const threadTs = query.get('thread_ts');
    if (!channel || !threadTs) return send(res, 400, { error: 'channel and thread_ts are required' });
    const thread = fakeAssistantThread(workspace, channel, threadTs);
    return send(res, 200, {
      status: thread?.status ?? '',
      loadingMessages: thread?.loadingMessages ?? [],
      ...(thread?.title === undefined ? {} : { title: thread.title }),
    });
  }
  if (method !== 'POST') return false;
  if (path === '/sandbox/slack/views/close') {
    const input = parseObject(body);
    const viewId = typeof input?.view_id === 'string' ? input.view_id : undefined;
    if (!viewId) return send(res, 400, { error: 'view_id is required' });
    try {
      viewsOf(workspace).settle(viewId, 'closed');
    } catch (error) {
      return send(res, 404, { error: (error as Error).message });
    }
    return send(res, 200, { ok: true });
  }
  if (path === RESPONSE_PATH) {
    const channel = query.get('channel');
    const user = query.get('user');
    const answer = parseObject(body) as CommandAnswer | undefined;
    if (!channel || !user || answer === undefined)
      return send(res, 400, { error: 'channel and user in the URL, a JSON answer in the body' });
    showAnswer(workspace, channel, user, answer);
    return send(res, 200, { ok: true });
  }
  if (path !== '/sandbox/slack/command') return false;
  const input = parseObject(body);
  const str = (name: string) => (typeof input?.[name] === 'string' ? (input[name] as string) : undefined);
  const channel = str('channel');
  const user = str('user');
  const command = str('command');
  if (!channel || !user || !command || !/^\/[a-z0-9_-]+$/i.test(command))
    return send(res, 400, { error: 'channel, user and command (/name) are required' });
  let form: string;
  let channelId: string;
  try {
    channelId = workspace.channelId(channel);
    form = slashCommandForm({
      teamId: workspace.teamId,
      appId: workspace.appId,
      channel: workspace.channel(channelId),
      user: { id: user, name: workspace.user(user).name },
      command,
      text: str('text') ?? '',
      triggerId: viewsOf(workspace).issueTrigger(user),
      // A later answer posted there is shown as Slack shows a command's answer (below).
      responseUrl: `${deps.url}${RESPONSE_PATH}?${new URLSearchParams({ channel: channelId, user })}`,
    });
  } catch (error) {
    return send(res, 404, { error: (error as Error).message });
  }
  const response = await postSignedForm({ url: deps.url, signingSecret: deps.signingSecret, form });
  const text = await response.text();
  if (response.status !== 200)
    return send(res, 502, { error: `the ingress answered ${response.status}: ${text.slice(0, 300)}` });
  const answer = parseObject(text) as CommandAnswer | undefined;
  if (answer) showAnswer(workspace, channelId, user, answer);
  return send(res, 200, {
    ok: true,
    ...(answer?.response_type ? { response_type: answer.response_type } : {}),
    ...(answer?.text ? { text: answer.text } : {}),
  });
}
