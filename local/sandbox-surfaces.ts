import type { IncomingMessage, ServerResponse } from 'node:http';
import { DynamoFeedbackStore } from '../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import type { ChangeFeed } from './change-feed.ts';
import { parseObject, send } from './json-door.ts';
import { pressedMessage } from './sandbox-button-press.ts';
import { routeConsoleDoors } from './sandbox-console-doors.ts';
import { createSandboxRoutes, type SandboxRouteDeps } from './sandbox-routes.ts';
import { routeSlackEdit } from './sandbox-slack-edit.ts';
import { newEventId, signSlackRequest } from './slack/sign.ts';
import { viewsOf } from './slack/views.ts';

/**
 * The sandbox's doors to Slack's app surfaces, each sending the ingress what Slack sends, in
 * Slack's shapes and signed: a press of an answer's feedback buttons, an App Home opened and
 * a button pressed in it, a modal submitted, an assistant thread started. And what the fake
 * Slack keeps of them for the console and tests: the Home published per user, the modals.
 *
 *   GET  /sandbox/slack/home?user=U          the Home tab published for U (404 before any)
 *   POST /sandbox/slack/home/open            {user}: app_home_opened
 *   POST /sandbox/slack/home/action          {user, block_id, action_id, value}: a press in the Home
 *   POST /sandbox/slack/feedback             {channel, user, message_ts, vote: up|down}
 *   POST /sandbox/slack/ephemeral/action     {channel, user, action_id, value}: a button of an ephemeral message
 *   GET  /sandbox/slack/views?user=U         the modals opened (for U)
 *   POST /sandbox/slack/views/submit         {view_id, values: {block: {action: value}}}
 *   POST /sandbox/slack/assistant/start      {user, channel, thread_ts}: assistant_thread_started
 *   GET  /sandbox/slack/assistant/prompts    the suggested prompts set, in order
 *   GET  /sandbox/conversations/<id>/feedback the feedback stored with a conversation
 *
 * and a person's edit of their own message (sandbox-slack-edit.ts).
 */
/** The sandbox's routes (sandbox-routes.ts) with the surfaces' and the console's doors (sandbox-console-doors.ts) in front of them. */
export function createSandboxRoutesWithSurfaces(deps: SandboxRouteDeps, feed: ChangeFeed) {
  const routes = createSandboxRoutes(deps, feed);
  return async (req: IncomingMessage, res: ServerResponse, body: string, path: string): Promise<void> => {
    const query = new URL(req.url ?? '/', 'http://sandbox').searchParams;
    if (await routeSurfaces(deps, req.method ?? 'GET', path, query, body, res)) return;
    if (await routeConsoleDoors(deps, req.method ?? 'GET', path, query, body, res)) return;
    if (await routeSlackEdit(deps, req.method ?? 'GET', path, body, res)) return;
    return routes(req, res, body, path);
  };
}

export async function routeSurfaces(
  deps: SandboxRouteDeps,
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  res: ServerResponse,
): Promise<boolean> {
  const workspace = deps.slack.workspace;
  const views = viewsOf(workspace);
  if (method === 'GET' && path === '/sandbox/slack/home') {
    const user = query.get('user');
    if (!user) return send(res, 400, { error: 'user is required' });
    const home = views.home(user);
    return home === undefined
      ? send(res, 404, { error: `no Home published for ${user}` })
      : send(res, 200, home);
  }
  if (method === 'GET' && path === '/sandbox/slack/views') {
    const user = query.get('user') ?? undefined;
    return send(res, 200, { views: views.modals(user) });
  }
  const feedbackOf = /^\/sandbox\/conversations\/([^/]+)\/feedback$/.exec(path);
  if (method === 'GET' && feedbackOf) {
    const store = new DynamoFeedbackStore({ client: deps.dynamodb, tableName: deps.tableName });
    return send(res, 200, { feedback: await store.list(decodeURIComponent(feedbackOf[1] ?? '')) });
  }
  if (method === 'GET' && path === '/sandbox/slack/assistant/prompts') {
    return send(res, 200, { prompts: views.suggestedPrompts() });
  }
  if (method !== 'POST' || !path.startsWith('/sandbox/slack/')) return false;
  const input = parseObject(body);
  if (input === undefined) return send(res, 400, { error: 'body must be a JSON object' });
  const str = (name: string) => (typeof input[name] === 'string' ? (input[name] as string) : undefined);
  const team = { id: workspace.teamId, domain: workspace.teamName };
  const userOf = (id: string) => ({ id, username: workspace.user(id).name, team_id: workspace.teamId });
  /** A `block_actions` payload as Slack sends it for `user`'s press, around what differs. */
  const blockActions = (
    user: string,
    fields: { container: Record<string, unknown> } & Record<string, unknown>,
  ) => ({
    type: 'block_actions',
    user: userOf(user),
    api_app_id: workspace.appId,
    token: 'sandbox-verification-token',
    trigger_id: views.issueTrigger(user),
    team,
    ...fields,
  });

  switch (path) {
    case '/sandbox/slack/home/open': {
      const user = str('user');
      if (!user) return send(res, 400, { error: 'user is required' });
      const eventTs = nowTs();
      return deliverEvent(deps, res, {
        type: 'app_home_opened',
        user,
        channel: `D_${user}`,
        tab: 'home',
        event_ts: eventTs,
        ...(views.home(user) ? { view: { id: views.home(user)?.id, type: 'home' } } : {}),
      });
    }
    case '/sandbox/slack/assistant/start': {
      const user = str('user');
      const channel = str('channel');
      const threadTs = str('thread_ts');
      if (!user || !channel || !threadTs)
        return send(res, 400, { error: 'user, channel and thread_ts are required' });
      return deliverEvent(deps, res, {
        type: 'assistant_thread_started',
        assistant_thread: {
          user_id: user,
          context: { channel_id: '', team_id: workspace.teamId, enterprise_id: null },
          channel_id: channel,
          thread_ts: threadTs,
        },
        event_ts: nowTs(),
      });
    }
    case '/sandbox/slack/feedback': {
      const channel = str('channel');
      const user = str('user');
      const messageTs = str('message_ts');
      const vote = str('vote');
      if (!channel || !user || !messageTs || (vote !== 'up' && vote !== 'down'))
        return send(res, 400, { error: 'channel, user, message_ts and vote (up or down) are required' });
      let message: ReturnType<typeof workspace.find>;
      try {
        message = workspace.find(channel, messageTs);
      } catch (error) {
        return send(res, 404, { error: (error as Error).message });
      }
      const block = (message.blocks ?? []).find(
        (b): b is { type: string; block_id?: string; elements?: { type?: string; action_id?: string }[] } =>
          typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'context_actions',
      );
      const element = block?.elements?.find((e) => e.type === 'feedback_buttons');
      if (!block || !element?.action_id)
        return send(res, 404, { error: `message ${messageTs} has no feedback buttons` });
      return deliverInteraction(
        deps,
        res,
        blockActions(user, {
          ...pressedMessage(workspace, message),
          actions: [
            {
              type: 'feedback_buttons',
              action_id: element.action_id,
              block_id: block.block_id,
              value: vote,
              action_ts: nowTs(),
            },
          ],
        }),
      );
    }
    case '/sandbox/slack/ephemeral/action': {
      const channel = str('channel');
      const user = str('user');
      const actionId = str('action_id');
      if (!channel || !user || !actionId)
        return send(res, 400, { error: 'channel, user and action_id are required' });
      const shown = workspace
        .ephemerals()
        .filter((e) => e.user === user && e.channel === workspace.channelId(channel))
        .reverse()
        .find((e) => JSON.stringify(e.blocks ?? []).includes(JSON.stringify(actionId)));
      if (shown === undefined)
        return send(res, 404, { error: `no ephemeral message to ${user} has ${actionId}` });
      return deliverInteraction(
        deps,
        res,
        blockActions(user, {
          container: {
            type: 'message',
            message_ts: shown.message_ts,
            channel_id: shown.channel,
            is_ephemeral: true,
          },
          channel: { id: shown.channel, name: workspace.channel(shown.channel).name },
          actions: [
            {
              type: 'button',
              action_id: actionId,
              block_id: 'actions',
              ...(str('value') === undefined ? {} : { value: str('value') }),
              action_ts: nowTs(),
            },
          ],
        }),
      );
    }
    case '/sandbox/slack/home/action': {
      const user = str('user');
      const blockId = str('block_id');
      const actionId = str('action_id');
      if (!user || !blockId || !actionId)
        return send(res, 400, { error: 'user, block_id and action_id are required' });
      const home = views.home(user);
      if (home === undefined) return send(res, 404, { error: `no Home published for ${user}` });
      return deliverInteraction(
        deps,
        res,
        blockActions(user, {
          container: { type: 'view', view_id: home.id },
          view: { ...home.view, id: home.id, hash: home.hash, type: 'home' },
          actions: [
            {
              type: 'button',
              action_id: actionId,
              block_id: blockId,
              ...(str('value') === undefined ? {} : { value: str('value') }),
              action_ts: nowTs(),
            },
          ],
        }),
      );
    }
    case '/sandbox/slack/views/submit': {
      const viewId = str('view_id');
      const values = input.values;
      if (!viewId || typeof values !== 'object' || values === null)
        return send(res, 400, { error: 'view_id and values ({block_id: {action_id: value}}) are required' });
      const stored = views.view(viewId);
      if (stored === undefined) return send(res, 404, { error: `no view ${viewId}` });
      views.settle(viewId, 'submitted');
      const state = Object.fromEntries(
        Object.entries(values as Record<string, Record<string, unknown>>).map(([blockId, actions]) => [
          blockId,
          Object.fromEntries(
            Object.entries(actions).map(([actionId, value]) => [
              actionId,
              { type: 'plain_text_input', value },
            ]),
          ),
        ]),
      );
      return deliverInteraction(deps, res, {
        type: 'view_submission',
        team,
        user: userOf(stored.user),
        api_app_id: workspace.appId,
        token: 'sandbox-verification-token',
        trigger_id: views.issueTrigger(stored.user),
        view: { ...stored.view, id: stored.id, hash: stored.hash, state: { values: state } },
        response_urls: [],
      });
    }
    default:
      return false;
  }
}

async function deliverEvent(deps: SandboxRouteDeps, res: ServerResponse, event: Record<string, unknown>) {
  const workspace = deps.slack.workspace;
  const body = JSON.stringify({
    token: 'sandbox-verification-token',
    team_id: workspace.teamId,
    api_app_id: workspace.appId,
    event,
    type: 'event_callback',
    event_id: newEventId(),
    event_time: Math.floor(Date.now() / 1000),
  });
  return post(deps, res, body, 'application/json');
}

async function deliverInteraction(
  deps: SandboxRouteDeps,
  res: ServerResponse,
  payload: Record<string, unknown>,
) {
  return post(
    deps,
    res,
    `payload=${encodeURIComponent(JSON.stringify(payload))}`,
    'application/x-www-form-urlencoded',
  );
}

async function post(deps: SandboxRouteDeps, res: ServerResponse, body: string, contentType: string) {
  const response = await fetch(`${deps.url}/slack/events`, {
    method: 'POST',
    body,
    headers: {
      'content-type': contentType,
      ...signSlackRequest({ signingSecret: deps.signingSecret, body }),
    },
  });
  const text = await response.text();
  if (response.status !== 200)
    return send(res, 502, { error: `the ingress answered ${response.status}: ${text.slice(0, 300)}` });
  return send(res, 200, { ok: true });
}

function nowTs(): string {
  const now = Date.now();
  return `${Math.floor(now / 1000)}.${String(now % 1000).padStart(3, '0')}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`;
}
