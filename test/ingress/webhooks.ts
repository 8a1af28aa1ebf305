import { createHmac, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import type { IngressEvent } from './slack-requests.ts';

/**
 * GitHub, PagerDuty and CloudWatch requests for the ingress tests. GitHub's are the real
 * payloads of `@octokit/webhooks-examples`, with only their times moved to now (the ingress
 * refuses events older than three days as replays).
 */

/** The package is its JSON file (`main`), read as such. */
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as {
  name: string;
  examples: unknown[];
}[];

export type GithubExampleEvent = 'issues' | 'issue_comment' | 'pull_request_review' | 'ping';

/** Every example of an event (and action), deep-copied. */
export function githubExamples(event: GithubExampleEvent, action?: string): Record<string, unknown>[] {
  const definition = examples.find((d) => d.name === event);
  if (definition === undefined) throw new Error(`no examples of ${event}`);
  return (definition.examples as unknown as Record<string, unknown>[])
    .filter((example) => action === undefined || example.action === action)
    .map((example) => structuredClone(example));
}

/** The first example of an event and action, its times set to `at`. */
export function githubExample(
  event: GithubExampleEvent,
  action: string | undefined,
  at: Date,
): Record<string, unknown> {
  const [example] = githubExamples(event, action);
  if (example === undefined) throw new Error(`no ${event}.${action} example`);
  return refreshTimes(example, at);
}

/** Every `*_at` field set to `at` (ISO 8601): the payload stays GitHub's, its time becomes now. */
export function refreshTimes<T>(value: T, at: Date): T {
  if (Array.isArray(value)) return value.map((item) => refreshTimes(item, at)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = key.endsWith('_at') && typeof item === 'string' ? at.toISOString() : refreshTimes(item, at);
  }
  return copy as T;
}

export interface GithubDelivery {
  event: string;
  body: string;
  secret: string;
  deliveryId?: string;
  /** Sign with this secret instead (a forgery). */
  signWith?: string;
}

/** A Function URL request to `/github/events`, signed as GitHub signs it. */
export async function githubRequest(delivery: GithubDelivery): Promise<IngressEvent> {
  return {
    rawPath: '/github/events',
    headers: await githubHeaders(delivery),
    body: delivery.body,
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST', path: '/github/events' } },
  };
}

export async function githubHeaders(delivery: GithubDelivery): Promise<Record<string, string>> {
  return {
    'content-type': 'application/json',
    'x-github-event': delivery.event,
    'x-github-delivery': delivery.deliveryId ?? randomUUID(),
    'x-hub-signature-256': await sign(delivery.signWith ?? delivery.secret, delivery.body),
    'user-agent': 'GitHub-Hookshot/test',
  };
}

/**
 * A PagerDuty V3 `incident.triggered` webhook, shaped as PagerDuty's webhook documentation
 * describes it (no package ships PagerDuty's examples).
 */
export function pagerdutyIncident(options: {
  eventId?: string;
  eventType?: string;
  incidentId?: string;
  service?: { id: string; summary: string };
  at: Date;
}): Record<string, unknown> {
  const incidentId = options.incidentId ?? 'Q1QKZKKE0FHUPJ';
  return {
    event: {
      id: options.eventId ?? `01${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`,
      event_type: options.eventType ?? 'incident.triggered',
      resource_type: 'incident',
      occurred_at: options.at.toISOString(),
      agent: { html_url: 'https://acme.pagerduty.com/users/PLH1HKV', id: 'PLH1HKV', type: 'user_reference' },
      client: null,
      data: {
        id: incidentId,
        type: 'incident',
        self: `https://api.pagerduty.com/incidents/${incidentId}`,
        html_url: `https://acme.pagerduty.com/incidents/${incidentId}`,
        number: 2,
        status: 'triggered',
        incident_key: 'd3640fbd41094207a1c11e58e46b1662',
        created_at: options.at.toISOString(),
        title: 'Checkout returns 500 for 12% of requests',
        service: {
          html_url: 'https://acme.pagerduty.com/services/PF9KMXH',
          id: options.service?.id ?? 'PF9KMXH',
          self: 'https://api.pagerduty.com/services/PF9KMXH',
          summary: options.service?.summary ?? 'Checkout API',
          type: 'service_reference',
        },
        assignees: [],
        escalation_policy: { id: 'PUS0KTE', summary: 'Default', type: 'escalation_policy_reference' },
        teams: [],
        priority: null,
        urgency: 'high',
        conference_bridge: null,
        resolve_reason: null,
      },
    },
  };
}

/** `v1=` + hex HMAC-SHA256 of the body under the secret: how PagerDuty signs a V3 webhook. */
export function computePagerdutySignature(secret: string, body: Uint8Array | string): string {
  return `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A Function URL request to `/pagerduty/events`, signed with each secret given (rotation sends several). */
export function pagerdutyRequest(body: string, secrets: readonly string[]): IngressEvent {
  return {
    rawPath: '/pagerduty/events',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-pagerduty-signature': secrets.map((secret) => computePagerdutySignature(secret, body)).join(','),
      'user-agent': 'PagerDuty-Webhook/V3.0',
    },
    body,
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST', path: '/pagerduty/events' } },
  };
}

/** An EventBridge `CloudWatch Alarm State Change`, as AWS documents it, for an alarm going to `state`. */
export function alarmStateChange(options: {
  alarmName: string;
  state: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA';
  at: Date;
  /** When the alarm went into its previous state (for OK: when it went into ALARM). */
  previousAt?: Date;
  id?: string;
}): Record<string, unknown> {
  const previous = options.state === 'ALARM' ? 'OK' : 'ALARM';
  return {
    version: '0',
    id: options.id ?? randomUUID(),
    'detail-type': 'CloudWatch Alarm State Change',
    source: 'aws.cloudwatch',
    account: '123456789012',
    time: options.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:cloudwatch:us-east-1:123456789012:alarm:${options.alarmName}`],
    detail: {
      alarmName: options.alarmName,
      state: {
        value: options.state,
        reason: 'Threshold Crossed: 1 datapoint [12.0] was greater than the threshold (5.0).',
        reasonData: '{"version":"1.0"}',
        timestamp: options.at.toISOString().replace('Z', '+0000'),
      },
      previousState: {
        value: previous,
        reason: 'Threshold Crossed',
        timestamp: (options.previousAt ?? new Date(options.at.getTime() - 600_000))
          .toISOString()
          .replace('Z', '+0000'),
      },
      configuration: { description: 'Checkout 5xx above 5%', metrics: [] },
    },
  };
}
