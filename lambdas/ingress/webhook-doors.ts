import { type Admission, decodeUtf8, parseJson, respondJson } from './admission.ts';
import { type AlertParse, parseAlarmStateChange, parsePagerdutyWebhook } from './alert-payloads.ts';
import { InvalidWebhookSignatureError, WebhookSignatureFailure } from './errors.ts';
import { isStale } from './event-age.ts';
import { isRoutedGithubEvent, parseGithubEvent } from './github-payloads.ts';
import { verifyGithubRequest } from './verify-github-request.ts';
import { verifyPagerdutyRequest } from './verify-pagerduty-request.ts';

export interface WebhookDoorOptions {
  secret: string;
  headers: Record<string, string>;
  body: Uint8Array | string;
  nowMilliseconds: number;
  /** How old an event's own time may be; older is a replay or a hopelessly late retry. */
  maxAgeSeconds: number;
}

const ACCEPTED = respondJson(202, { accepted: true });
const ignored = (reason: string, detail?: string): Admission => ({
  type: 'answer',
  response: respondJson(200, { ignored: reason }),
  ignored: { reason, detail },
});

/** GitHub webhooks at `/github/events`: `X-Hub-Signature-256`, deduplicated by `X-GitHub-Delivery`. */
export async function admitGithubRequest(options: WebhookDoorOptions): Promise<Admission> {
  const { headers } = options;
  const body = decodeUtf8(options.body);
  // GitHub signs the UTF-8 text of its JSON; bytes that are not UTF-8 cannot be its signature.
  if (body === undefined) return { type: 'refuse', status: 401, reason: 'body is not UTF-8' };
  try {
    await verifyGithubRequest({ secret: options.secret, signature: headers['x-hub-signature-256'], body });
  } catch (error) {
    if (!(error instanceof InvalidWebhookSignatureError)) {
      return { type: 'unavailable', reason: 'cannot verify GitHub webhooks', error };
    }
    return { type: 'refuse', status: 401, reason: error.reason };
  }
  const name = headers['x-github-event'] ?? '';
  const deliveryId = headers['x-github-delivery'] ?? '';
  if (name === 'ping') return { type: 'answer', response: respondJson(200, { pong: true }) };
  if (!/^[\w.-]{1,100}$/.test(deliveryId)) {
    return { type: 'refuse', status: 400, reason: 'X-GitHub-Delivery is missing or malformed' };
  }
  if (!isRoutedGithubEvent(name)) return ignored('github_event', name.slice(0, 100));
  const json = parseJson(body);
  if (!json.ok) return { type: 'refuse', status: 400, reason: 'GitHub payload is not valid JSON' };
  const parsed = parseGithubEvent(
    name,
    deliveryId,
    json.value,
    new Date(options.nowMilliseconds).toISOString(),
  );
  if (parsed.type === 'invalid') return { type: 'refuse', status: 400, reason: parsed.reason };
  if (isStale(parsed.eventTime, options.nowMilliseconds, options.maxAgeSeconds)) {
    return { type: 'refuse', status: 401, reason: WebhookSignatureFailure.staleEvent };
  }
  return { type: 'enqueue', envelope: parsed.envelope, accepted: ACCEPTED };
}

/** PagerDuty V3 webhooks at `/pagerduty/events`: `X-PagerDuty-Signature`, deduplicated by the event id. */
export function admitPagerdutyRequest(options: WebhookDoorOptions): Admission {
  try {
    verifyPagerdutyRequest({
      secret: options.secret,
      signature: options.headers['x-pagerduty-signature'],
      body: options.body,
    });
  } catch (error) {
    if (!(error instanceof InvalidWebhookSignatureError)) {
      return { type: 'unavailable', reason: 'cannot verify PagerDuty webhooks', error };
    }
    return { type: 'refuse', status: 401, reason: error.reason };
  }
  const body = decodeUtf8(options.body);
  if (body === undefined) return { type: 'refuse', status: 400, reason: 'body is not valid UTF-8' };
  const json = parseJson(body);
  if (!json.ok) return { type: 'refuse', status: 400, reason: 'PagerDuty payload is not valid JSON' };
  return fromAlert(
    parsePagerdutyWebhook(json.value, new Date(options.nowMilliseconds).toISOString()),
    options,
  );
}

/**
 * A CloudWatch alarm state change that the EventBridge rule delivered by invoking the ingress.
 * IAM authenticated the caller (only the rule may invoke), so there is no signature to check;
 * the shape and the age still are.
 */
export function admitAlarmEvent(
  event: unknown,
  options: Pick<WebhookDoorOptions, 'nowMilliseconds' | 'maxAgeSeconds'>,
): Admission {
  return fromAlert(parseAlarmStateChange(event, new Date(options.nowMilliseconds).toISOString()), options);
}

function fromAlert(
  parsed: AlertParse,
  options: Pick<WebhookDoorOptions, 'nowMilliseconds' | 'maxAgeSeconds'>,
): Admission {
  switch (parsed.type) {
    case 'invalid':
      return { type: 'refuse', status: 400, reason: parsed.reason };
    case 'ignore':
      return ignored(parsed.reason);
    case 'enqueue':
      if (isStale(parsed.eventTime, options.nowMilliseconds, options.maxAgeSeconds)) {
        return { type: 'refuse', status: 401, reason: WebhookSignatureFailure.staleEvent };
      }
      return { type: 'enqueue', envelope: parsed.envelope, accepted: ACCEPTED };
  }
}
