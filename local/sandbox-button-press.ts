import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { send } from './json-door.ts';
import type { SandboxRouteDeps } from './sandbox-routes.ts';
import { postSignedForm } from './slack/sign.ts';

/** `POST /sandbox/slack/action`: a person presses a button on a message of the fake workspace. */

/** A button press, as Slack sends it: a signed, form-encoded `block_actions` payload into the ingress. */
export async function pressButton(
  deps: Pick<SandboxRouteDeps, 'slack' | 'url' | 'signingSecret'>,
  body: string,
  res: ServerResponse,
): Promise<true> {
  let input: {
    channel?: unknown;
    user?: unknown;
    message_ts?: unknown;
    action_id?: unknown;
    value?: unknown;
    block_id?: unknown;
  };
  try {
    input = JSON.parse(body) as typeof input;
  } catch {
    return send(res, 400, {
      error: 'body must be JSON: {channel, user, message_ts, action_id, value?, block_id?}',
    });
  }
  const { channel, user, message_ts: messageTs, action_id: actionId } = input;
  if (
    typeof channel !== 'string' ||
    typeof user !== 'string' ||
    typeof messageTs !== 'string' ||
    typeof actionId !== 'string'
  ) {
    return send(res, 400, { error: 'channel, user, message_ts and action_id are required strings' });
  }
  const workspace = deps.slack.workspace;
  let message: ReturnType<typeof workspace.find>;
  try {
    message = workspace.find(channel, messageTs);
  } catch (error) {
    return send(res, 404, { error: (error as Error).message });
  }
  const actionTs = `${Math.floor(Date.now() / 1000)}.${String(Date.now() % 1000).padStart(3, '0')}${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`;
  const payload = {
    type: 'block_actions',
    user: { id: user, username: workspace.user(user).name, team_id: workspace.teamId },
    api_app_id: workspace.appId,
    token: 'sandbox-verification-token',
    trigger_id: `${Date.now()}.${randomUUID()}`,
    team: { id: workspace.teamId, domain: workspace.teamName },
    ...pressedMessage(workspace, message),
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: typeof input.block_id === 'string' ? input.block_id : 'actions',
        ...(typeof input.value === 'string' ? { value: input.value } : {}),
        action_ts: actionTs,
      },
    ],
  };
  const form = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const response = await postSignedForm({ url: deps.url, signingSecret: deps.signingSecret, form });
  if (response.status !== 200) return send(res, 502, { error: `the ingress answered ${response.status}` });
  return send(res, 200, { ok: true });
}

type Workspace = SandboxRouteDeps['slack']['workspace'];

/** What a `block_actions` payload says of the message whose button was pressed: its container, channel and message. */
export function pressedMessage(workspace: Workspace, message: ReturnType<Workspace['find']>) {
  const thread = message.thread_ts ? { thread_ts: message.thread_ts } : {};
  return {
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
      ...thread,
    },
    channel: { id: message.channel, name: workspace.channel(message.channel).name },
    message: {
      type: 'message',
      ts: message.ts,
      ...thread,
      text: message.text,
      ...(message.blocks ? { blocks: message.blocks } : {}),
    },
  };
}
