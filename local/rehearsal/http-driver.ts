import {
  ConversationEndedError,
  type ConversationView,
  type ExecutionView,
  type SandboxDriver,
  type SlackMessage,
} from './conversations.ts';

/**
 * A rehearsal's hands on a sandbox: its HTTP endpoints (docs/sandbox.md). A wait gives up when
 * what it probes has not changed for `stallMs` (the sandbox is busy or not, a wait that will
 * never end still ends), never on a total time.
 */

export class RehearsalStallError extends Error {
  override readonly name = 'RehearsalStallError';
}

export function httpDriver(url: string, stallMs = 180_000): SandboxDriver {
  const call = async <T>(
    path: string,
    body?: unknown,
    method = body === undefined ? 'GET' : 'POST',
  ): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body !== undefined && {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };
  const driver: SandboxDriver = {
    async post(channel, user, text, threadTs) {
      const posted = await call<{ ts: string }>('/sandbox/slack/post', {
        channel,
        user,
        text,
        ...(threadTs !== undefined && { thread_ts: threadTs }),
      });
      return posted.ts;
    },
    async conversations() {
      return (await call<{ conversations: ConversationView[] }>('/sandbox/conversations')).conversations;
    },
    async executionsOf(id) {
      const detail = await call<{ executions: { name: string; status: string }[] }>(
        `/sandbox/conversations/${encodeURIComponent(id)}`,
      );
      return detail.executions;
    },
    execution: (name) => call<ExecutionView>(`/sandbox/executions/${encodeURIComponent(name)}`),
    async command(channel, user, command, text) {
      await call('/sandbox/slack/command', { channel, user, command, text });
    },
    async press(channel, user, messageTs, button) {
      await call('/sandbox/slack/action', {
        channel,
        user,
        message_ts: messageTs,
        action_id: button.action_id,
        value: button.value,
      });
    },
    async openIssue(repo, issue) {
      return (await call<{ number: number }>('/sandbox/github/issues', { repo, ...issue })).number;
    },
    async modelFault(fault) {
      if (fault === undefined) await call('/sandbox/faults', undefined, 'DELETE');
      else await call('/sandbox/faults', { target: 'model', ...fault });
    },
    async modelRequests() {
      return (await call<{ modelRequests: number }>('/sandbox/faults')).modelRequests;
    },
    async messages(channel, threadTs) {
      const query = `channel=${channel}${threadTs ? `&thread_ts=${threadTs}` : ''}`;
      return (await call<{ messages: SlackMessage[] }>(`/sandbox/slack/messages?${query}`)).messages;
    },
    async waitFor(what, probe) {
      let seen = '';
      let changedAt = Date.now();
      let note = '';
      for (let pause = 100; ; pause = Math.min(1_000, pause * 1.5)) {
        try {
          const value = await probe();
          if (value !== undefined) return value;
          note = '';
        } catch (error) {
          // A conversation that ended on its own is an answer, not a reason to wait on.
          if (error instanceof ConversationEndedError) throw error;
          note = String(error);
        }
        // Progress: any conversation of the sandbox changed (a turn, a phase, an update).
        const now = JSON.stringify(await driver.conversations().catch(() => []));
        if (now !== seen) {
          seen = now;
          changedAt = Date.now();
        } else if (Date.now() - changedAt > stallMs) {
          throw new RehearsalStallError(
            `no progress for ${stallMs / 1000} s waiting for ${what}${note ? ` (last: ${note})` : ''}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    },
  };
  return driver;
}
