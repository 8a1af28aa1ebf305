import { slashCommandForm } from '../../local/sandbox-console-doors.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { postSignedForm, signSlackRequest } from '../../local/slack/sign.ts';
import { type EventuallyOptions, eventually } from './eventually.ts';
import { sandboxApi } from './sandbox-http.ts';

/**
 * The one way tests act in a running sandbox as Slack's people do, and read what it did: a
 * message posted (top-level or in a thread, mentioning the bot or not) or edited by its author,
 * a slash command and a raw event delivered to the ingress signed exactly as Slack signs them, a
 * button pressed and a modal submitted (the sandbox's doors build Slack's `message_changed`,
 * `block_actions` and `view_submission` payloads and sign them), a channel or a thread read,
 * and a wait for what should follow.
 *
 * Workflow harnesses keep only their workflow's script (what to post, what to wait for) and
 * leave the moves to this driver.
 */

export type SlackMessage = { ts: string; thread_ts?: string; user?: string; bot?: boolean; text: string };

/** A slash command typed by `user` in `channel`; the conversation it starts is named after `triggerId`. */
export interface SlashCommand {
  command: string;
  text: string;
  channel: string;
  user: string;
  triggerId: string;
}

/** A press of a button on a message in the channel's history. */
export interface ButtonPress {
  channel: string;
  user: string;
  messageTs: string;
  actionId: string;
  value?: string;
  blockId?: string;
}

export interface SandboxDriver {
  /** The sandbox's own JSON surface: GET `path`, or POST `body` to it; a non-2xx answer throws. */
  api<T>(path: string, body?: unknown): Promise<T>;
  /** Posts `text` as `user` (in the thread of `threadTs` if given); resolves once the ingress took it, with its ts. */
  post(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  /** Posts `text` mentioning the bot (`<@bot> text`), as `post` does. */
  mention(channel: string, user: string, text: string, threadTs?: string): Promise<string>;
  /** Sends the slash command's form to the ingress, signed; the ingress's answer. */
  slash(command: SlashCommand): Promise<Response>;
  /**
   * Delivers an Events API body to the ingress, signed, with Slack's retry headers when `retry`
   * is given (`x-slack-retry-num`, reason `http_timeout`); the ingress's answer.
   */
  event(body: unknown, retry?: number): Promise<Response>;
  /**
   * `user` edits their message `ts` to `text`: the ingress gets Slack's `message_changed` (and
   * the `app_mention` again when the text mentions the bot), signed; the door's answer (403 when
   * `user` is not the author), once the ingress answered the events.
   */
  edit(channel: string, user: string, ts: string, text: string): Promise<Response>;
  /** Presses a button: a signed `block_actions` for the message's button; the door's answer (502 if the ingress refused it). */
  press(button: ButtonPress): Promise<Response>;
  /**
   * Submits the modal `viewId` with `values` ({block_id: {action_id: value}}): a signed
   * `view_submission`; the door's answer (502 if the ingress refused it).
   */
  submitView(viewId: string, values: Record<string, Record<string, string>>): Promise<Response>;
  /** The channel's top-level messages, or the thread of `threadTs` (its root first). */
  messages(channel: string, threadTs?: string): Promise<SlackMessage[]>;
  /** Polls `probe` until `accept` holds (test/support/eventually.ts: fails on no progress, never on a total). */
  eventually<T>(probe: () => T | Promise<T>, accept: (value: T) => boolean, what: string): Promise<T>;
}

/**
 * A driver over the sandbox `sandbox()` returns (read on each call, so a file can make its
 * driver before its `beforeAll` started the sandbox). `waits` are the options of its `eventually`.
 */
export function sandboxDriver(
  sandbox: () => Pick<Sandbox, 'url' | 'signingSecret' | 'slack'>,
  waits: EventuallyOptions = {},
): SandboxDriver {
  const api = sandboxApi(() => sandbox().url);
  /** A POST to one of the sandbox's doors to Slack's surfaces, answered as it was. */
  const door = (path: string, body: unknown) =>
    fetch(`${sandbox().url}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const post = async (channel: string, user: string, text: string, threadTs?: string) =>
    (await api<{ ts: string }>('/sandbox/slack/post', { channel, user, text, ...thread(threadTs) })).ts;
  return {
    api,
    post,
    mention: (channel, user, text, threadTs) =>
      post(channel, user, `<@${sandbox().slack.workspace.botUserId}> ${text}`, threadTs),
    slash({ command, text, channel, user, triggerId }) {
      const { url, signingSecret, slack } = sandbox();
      const workspace = slack.workspace;
      const form = slashCommandForm({
        teamId: workspace.teamId,
        appId: workspace.appId,
        channel: { id: channel, name: known(() => workspace.channel(channel).name) ?? channel.toLowerCase() },
        user: { id: user, name: known(() => workspace.user(user).name) ?? user.toLowerCase() },
        command,
        text,
        triggerId,
        // Where a later answer would go; the workflows answer in their threads instead.
        responseUrl: 'https://hooks.slack.invalid/commands/1',
      });
      return postSignedForm({ url, signingSecret, form });
    },
    event(body, retry) {
      const { url, signingSecret } = sandbox();
      const raw = JSON.stringify(body);
      return fetch(`${url}/slack/events`, {
        method: 'POST',
        body: raw,
        headers: {
          'content-type': 'application/json',
          ...signSlackRequest({ signingSecret, body: raw }),
          ...(retry === undefined
            ? {}
            : { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' }),
        },
      });
    },
    edit: (channel, user, ts, text) => door('/sandbox/slack/edit', { channel, user, ts, text }),
    press: ({ channel, user, messageTs, actionId, value, blockId }) =>
      door('/sandbox/slack/action', {
        channel,
        user,
        message_ts: messageTs,
        action_id: actionId,
        ...(value === undefined ? {} : { value }),
        ...(blockId === undefined ? {} : { block_id: blockId }),
      }),
    submitView: (viewId, values) => door('/sandbox/slack/views/submit', { view_id: viewId, values }),
    async messages(channel, threadTs) {
      const query = new URLSearchParams({ channel, ...thread(threadTs) });
      return (await api<{ messages: SlackMessage[] }>(`/sandbox/slack/messages?${query}`)).messages;
    },
    eventually: (probe, accept, what) => eventually(probe, accept, what, waits),
  };
}

const thread = (threadTs: string | undefined) => (threadTs ? { thread_ts: threadTs } : {});

/** What `read` gives, or undefined when the fake workspace does not know the channel or user. */
function known(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
