import type { ServerResponse } from 'node:http';
import { parseObject, send } from './json-door.ts';
import type { SandboxRouteDeps } from './sandbox-routes.ts';

/**
 * A person editing their own message, as Slack lets them:
 *
 *   POST /sandbox/slack/edit   {channel, user, ts, text}
 *
 * The fake workspace changes the message and the ingress gets what Slack sends for an edit,
 * signed: `message_changed` (with `message`, `previous_message`, `hidden`), and the
 * `app_mention` again, with `edited`, when the new text mentions the bot. Only the message's
 * author may edit it (anyone else: 403, Slack's `cant_update_message`). Answered once the
 * ingress has answered the events.
 */
export async function routeSlackEdit(
  deps: Pick<SandboxRouteDeps, 'slack'>,
  method: string,
  path: string,
  body: string,
  res: ServerResponse,
): Promise<boolean> {
  if (method !== 'POST' || path !== '/sandbox/slack/edit') return false;
  const input = parseObject(body);
  const field = (name: string) => (typeof input?.[name] === 'string' ? (input[name] as string) : undefined);
  const [channel, user, ts, text] = [field('channel'), field('user'), field('ts'), field('text')];
  if (!channel || !user || !ts || text === undefined)
    return send(res, 400, { error: 'channel, user, ts and text are required strings' });
  const workspace = deps.slack.workspace;
  try {
    workspace.editAsUser({ channel, user, ts, text });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const status = code === 'cant_update_message' ? 403 : code === undefined ? 500 : 404;
    return send(res, status, { error: (error as Error).message });
  }
  await workspace.settled();
  return send(res, 200, { ok: true, ts });
}
