import type { createIngressHandler, IngressHandler } from '../../lambdas/ingress/handle-ingress.ts';
import { computeSlackSignature } from '../../lambdas/ingress/verify-slack-request.ts';
import { deduplicationId, type InboxEnvelope, messageGroupId } from '../../lambdas/kernel/inbox.ts';

/** Where the ingress handler logs. */
type IngressLogger = Parameters<typeof createIngressHandler>[0]['logger'];

/** The Function URL event the ingress handler reads (it takes any other record too, to refuse it). */
export type IngressEvent = Exclude<Parameters<IngressHandler>[0], Record<string, unknown>>;

/**
 * Signed Slack requests, as a Lambda Function URL delivers them, and fakes for the
 * ingress's seams. Shared by the ingress tests.
 */

export const SIGNING_SECRET = 'test-signing-secret-8f14e45fceea167a';
export const BOT_USER_ID = 'UBOT0001';
/** 2025-01-01T00:00:00Z: the tests' clock. */
export const NOW_MS = Date.UTC(2025, 0, 1);
export const NOW_SECONDS = Math.floor(NOW_MS / 1000);

export const JSON_TYPE = 'application/json';
export const FORM_TYPE = 'application/x-www-form-urlencoded';

export interface SignOptions {
  body: string;
  contentType?: string | undefined;
  /** Seconds; defaults to the tests' now. */
  timestamp?: number | string | undefined;
  secret?: string;
  /** Deliver the body base64-encoded, as Function URLs do for some content types. */
  base64?: boolean;
  headers?: Record<string, string>;
  method?: string;
}

/** A request signed the way Slack signs it, over the body's UTF-8 bytes. */
export function signedRequest(options: SignOptions): IngressEvent {
  const timestamp = String(options.timestamp ?? NOW_SECONDS);
  const signature = computeSlackSignature(
    options.secret ?? SIGNING_SECRET,
    timestamp,
    Buffer.from(options.body),
  );
  return unsignedRequest({
    ...options,
    headers: {
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
      ...options.headers,
    },
  });
}

export function unsignedRequest(options: SignOptions): IngressEvent {
  return {
    headers: {
      ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
      ...options.headers,
    },
    body: options.base64 ? Buffer.from(options.body).toString('base64') : options.body,
    isBase64Encoded: options.base64 ?? false,
    requestContext: { http: { method: options.method ?? 'POST' } },
  };
}

export function messageEvent(
  overrides: Record<string, unknown> = {},
  callback: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    token: 'deprecated-verification-token',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: 'Ev0001',
    event_time: NOW_SECONDS,
    ...callback,
    event: {
      type: 'message',
      channel: 'C0001',
      channel_type: 'channel',
      user: 'U0001',
      text: 'the export job fails with a 502',
      ts: '1735689600.000100',
      event_ts: '1735689600.000100',
      ...overrides,
    },
  });
}

export function slashCommand(overrides: Record<string, string> = {}): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: 'T0001',
    team_domain: 'acme',
    channel_id: 'C0001',
    channel_name: 'product',
    user_id: 'U0001',
    user_name: 'ada',
    command: '/prd',
    text: 'a dark mode for the dashboard',
    api_app_id: 'A0001',
    response_url: 'https://hooks.slack.com/commands/T0001/1/abc',
    trigger_id: '13345224609.738474920.8088930838d88f008e0',
    ...overrides,
  }).toString();
}

export function blockActionsPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: 'U0002', username: 'grace', team_id: 'T0001' },
    api_app_id: 'A0001',
    token: 'deprecated-verification-token',
    container: {
      type: 'message',
      message_ts: '1735689700.000200',
      channel_id: 'C0001',
      is_ephemeral: false,
      thread_ts: '1735689600.000100',
    },
    trigger_id: '12466734323.1395872398.e0d23b5b4b4e1c3f2b38a05ab2e5f0a1',
    team: { id: 'T0001', domain: 'acme' },
    channel: { id: 'C0001', name: 'incidents' },
    message: {
      type: 'message',
      ts: '1735689700.000200',
      thread_ts: '1735689600.000100',
      text: 'Restart the pod?',
    },
    response_url: 'https://hooks.slack.com/actions/T0001/1/xyz',
    actions: [
      {
        type: 'button',
        block_id: 'approval',
        action_id: 'approve',
        text: { type: 'plain_text', text: 'Approve' },
        value: 'step-3',
        action_ts: '1735689710.123456',
      },
    ],
    ...overrides,
  };
}

export function interactivity(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** What the ingress sent to SQS, with the ids SQS would group and deduplicate by. */
export interface Enqueued {
  envelope: InboxEnvelope;
  groupId: string;
  dedupId: string;
}

/** An inbox that records what it is given; `fail` makes every send reject. */
export function fakeInbox(options: { fail?: Error } = {}) {
  const sent: Enqueued[] = [];
  return {
    sent,
    enqueue: async (envelope: InboxEnvelope): Promise<void> => {
      if (options.fail) throw options.fail;
      sent.push({ envelope, groupId: messageGroupId(envelope), dedupId: deduplicationId(envelope) });
    },
  };
}

export interface LogLine {
  level: keyof IngressLogger;
  message: string;
  attributes: Record<string, unknown>;
}

export function recordingLogger(): IngressLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log =
    (level: LogLine['level']) =>
    (message: string, ...attributes: Record<string, unknown>[]) => {
      lines.push({ level, message, attributes: Object.assign({}, ...attributes) });
    };
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
