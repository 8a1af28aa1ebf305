import type { InboxEnvelope } from '../kernel/inbox.ts';
import { readCommandText, type SlashCommandUsage } from '../kernel/slash-command-help.ts';
import { type Admission, decodeUtf8, respond, respondJson } from './admission.ts';
import { InvalidSlackSignatureError } from './errors.ts';
import { parseSlackRequest } from './parse-slack-request.ts';
import { verifySlackRequest } from './verify-slack-request.ts';

export interface SlackDoorOptions {
  signingSecret: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
  nowMilliseconds: number;
  botUserId: string | undefined;
  /** The slash commands some workflow handles; undefined passes every command on. */
  slashCommands: readonly string[] | undefined;
  /** What each slash command takes; a command without one is passed on as typed. */
  slashCommandUsage?: readonly SlashCommandUsage[] | undefined;
}

/** What Slack sees once an envelope is on the inbox: an empty 200, or a slash command's ack. */
function accepted(envelope: InboxEnvelope) {
  if (envelope.kind !== 'slash_command') return respond(200, '');
  // Ephemeral: only the person who typed the command sees the ack; the work goes on behind the inbox.
  return respondJson(200, { response_type: 'ephemeral', text: `Got it: ${envelope.command} is on its way.` });
}

/**
 * Slack's requests (Events API, slash commands, interactivity): verify the v0 signature
 * within five minutes, parse, and decide. Pure but for the secret, which the caller fetched.
 */
export function admitSlackRequest(options: SlackDoorOptions): Admission {
  const { headers } = options;
  try {
    verifySlackRequest({
      signingSecret: options.signingSecret,
      headers,
      body: options.body,
      nowMilliseconds: options.nowMilliseconds,
    });
  } catch (error) {
    if (!(error instanceof InvalidSlackSignatureError)) {
      return { type: 'unavailable', reason: 'cannot verify Slack requests', error };
    }
    return { type: 'refuse', status: 401, reason: error.reason };
  }
  const body = decodeUtf8(options.body);
  if (body === undefined) return { type: 'refuse', status: 400, reason: 'body is not valid UTF-8' };

  const parsed = parseSlackRequest({
    body,
    contentType: headers['content-type'],
    // Verified: the timestamp header is present and all digits.
    requestTimestamp: headers['x-slack-request-timestamp'] ?? '',
    receivedAt: new Date(options.nowMilliseconds).toISOString(),
    botUserId: options.botUserId,
  });
  switch (parsed.type) {
    case 'url_verification':
      return { type: 'answer', response: respondJson(200, { challenge: parsed.challenge }) };
    case 'ignore':
      return {
        type: 'answer',
        response: respond(200, ''),
        ignored: { reason: parsed.reason, detail: parsed.detail },
      };
    case 'invalid':
      return { type: 'refuse', status: 400, reason: parsed.reason };
    case 'enqueue': {
      const { envelope } = parsed;
      if (
        envelope.kind === 'slash_command' &&
        options.slashCommands !== undefined &&
        !options.slashCommands.includes(envelope.command)
      ) {
        // An honest answer now, instead of "on its way" and then silence from the Router.
        return {
          type: 'answer',
          response: respondJson(200, {
            response_type: 'ephemeral',
            text: `${envelope.command} is not a command this app handles.`,
          }),
          ignored: { reason: 'unknown_slash_command', detail: envelope.command },
        };
      }
      const usage =
        envelope.kind === 'slash_command'
          ? options.slashCommandUsage?.find((u) => u.command === envelope.command)
          : undefined;
      const reading =
        envelope.kind === 'slash_command' && usage ? readCommandText(usage, envelope.text) : undefined;
      if (reading?.type === 'answer') {
        // Help, or a command that cannot run as typed: its usage now, and nothing started.
        return {
          type: 'answer',
          response: respondJson(200, { response_type: 'ephemeral', text: reading.text }),
          ignored: { reason: `slash_command_${reading.reason}`, detail: usage?.command ?? '' },
        };
      }
      const retryNum = headers['x-slack-retry-num'];
      return {
        type: 'enqueue',
        envelope,
        accepted: accepted(envelope),
        // A retry is enqueued like the first delivery: the same event id is the same SQS
        // deduplication id, so SQS drops it if the first made it; if not, this one counts.
        ...(retryNum === undefined
          ? {}
          : { note: { retryNum, retryReason: headers['x-slack-retry-reason'] } }),
      };
    }
  }
}
