import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSlackApiHandler } from './slack/api.ts';
import { type SlackMessageEvent, FakeSlack as Workspace } from './slack/fake-slack.ts';
import { buildEventCallbacks, newEventId, signSlackRequest } from './slack/sign.ts';

/**
 * The sandbox's Slack: a fake workspace whose channels are the ones the stack is configured
 * with (the `CHANNELS` map the functions get), named as the workflows know them
 * (`bugReports` -> `bug-reports`), plus its Web API handler.
 */
export interface FakeSlack {
  readonly workspace: Workspace;
  readonly api: (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void>;
}

/** The direct-message channel with the app: its threads are assistant threads. */
const ASSISTANT_DM = 'D_AGENT';

/** `bugReports` -> `bug-reports` */
export function channelName(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export function createFakeSlack(options: {
  botUserId: string;
  botToken: string;
  channelsEnv: Record<string, string>;
  config?: unknown;
}): FakeSlack {
  const configured = JSON.parse(options.channelsEnv.CHANNELS ?? '{}') as Record<string, string>;
  // Two settings may name one channel (the issue pipeline posts in #developers by default):
  // it is one channel in the workspace, named after the first setting.
  const byId = new Map<string, { id: string; name: string }>();
  for (const [key, id] of Object.entries(configured)) {
    if (!byId.has(id)) byId.set(id, { id, name: channelName(key) });
  }
  const channels = [...byId.values()];
  const workspace = new Workspace({
    botToken: options.botToken,
    botUserId: options.botUserId,
    channels: [
      ...(channels.length > 0 ? channels : [{ id: 'C_GENERAL', name: 'general' }]),
      // The app's direct messages, where Slack opens its assistant threads (a DM id begins with D).
      { id: ASSISTANT_DM, name: 'agent (direct message)' },
    ],
    users: [
      { id: 'U_REPORTER', name: 'reporter', realName: 'Rita Reporter' },
      { id: 'U_DEV', name: 'developer', realName: 'Dev Eloper' },
      { id: 'U_DEV2', name: 'developer2', realName: 'Dana Dev' },
      { id: 'U_ONCALL', name: 'oncall', realName: 'Otto Oncall' },
      { id: 'U_THIRD', name: 'bystander', realName: 'Bea Bystander' },
    ],
    // The groups of the default `slackAgents.people`: developers, and the on-call rotation.
    userGroups: { S_DEVELOPERS: ['U_DEV', 'U_DEV2'], S_ONCALL: ['U_ONCALL'] },
  });
  const handler = createSlackApiHandler(workspace);
  return { workspace, api: (req, res, body) => handler(req, res, body) };
}

/** The signed Events API requests Slack sends for one message (a mention adds `app_mention`). */
export function signedEventRequests(
  workspace: Workspace,
  message: SlackMessageEvent,
  signingSecret: string,
): { headers: Record<string, string>; body: string }[] {
  return buildEventCallbacks(message, {
    teamId: workspace.teamId,
    apiAppId: workspace.appId,
    botUserId: workspace.botUserId,
    eventId: newEventId(),
  }).map((callback) => {
    const body = JSON.stringify(callback);
    return {
      headers: { 'content-type': 'application/json', ...signSlackRequest({ signingSecret, body }) },
      body,
    };
  });
}
