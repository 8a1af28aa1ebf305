import * as z from 'zod';
import { InboxAlert } from '../kernel/inbox.ts';
import { eventTs, invalidShape } from './github-payloads.ts';

/**
 * Alerts: a CloudWatch alarm's state change as EventBridge delivers it to the ingress Lambda
 * (the rule's target), and a PagerDuty V3 webhook. Only the fields used are read.
 */

const AlarmState = z.looseObject({
  value: z.string().min(1),
  reason: z.string().default(''),
  timestamp: z.string().min(1),
});

/** An EventBridge `CloudWatch Alarm State Change` event. */
export const AlarmStateChangeEvent = z.looseObject({
  id: z.string().min(1),
  'detail-type': z.literal('CloudWatch Alarm State Change'),
  source: z.literal('aws.cloudwatch'),
  time: z.string().min(1),
  region: z.string().default(''),
  resources: z.array(z.string()).default([]),
  detail: z.looseObject({
    alarmName: z.string().min(1),
    state: AlarmState,
    previousState: AlarmState.optional(),
    configuration: z.looseObject({ description: z.string().nullish() }).optional(),
  }),
});

/** Whether a Lambda event is an EventBridge event rather than a Function URL request. */
export function isEventBridgeEvent(event: unknown): event is Record<string, unknown> {
  return typeof event === 'object' && event !== null && 'detail-type' in event && 'source' in event;
}

export type AlertParse =
  | { type: 'enqueue'; envelope: InboxAlert; eventTime: string }
  | { type: 'ignore'; reason: string }
  | { type: 'invalid'; reason: string };

/** Reads an alarm state change into an envelope; one incident runs from ALARM to the next state. */
export function parseAlarmStateChange(json: unknown, receivedAt: string): AlertParse {
  const parsed = AlarmStateChangeEvent.safeParse(json);
  if (!parsed.success) return invalidShape('CloudWatch alarm state change', parsed.error);
  const { detail } = parsed.data;
  const opens = detail.state.value === 'ALARM';
  // The incident is the alarm's ALARM episode: for ALARM its own time, for the change that
  // ends it (OK, INSUFFICIENT_DATA) the previous state's time, which is that ALARM's.
  const episode = opens
    ? detail.state.timestamp
    : (detail.previousState?.timestamp ?? detail.state.timestamp);
  const alarm = parsed.data.resources[0] ?? detail.alarmName;
  return alertEnvelope(
    {
      kind: 'alert',
      eventId: parsed.data.id,
      receivedAt,
      source: 'cloudwatch',
      name: detail.alarmName,
      incidentKey: `${alarm}@${episode}`,
      state: detail.state.value,
      opens,
      user: 'cloudwatch',
      title: `${detail.alarmName} is ${detail.state.value}`,
      text: [detail.configuration?.description ?? '', detail.state.reason].filter(Boolean).join('\n'),
      ts: eventTs(parsed.data.time, parsed.data.id),
    },
    parsed.data.time,
  );
}

/** A PagerDuty V3 webhook: `{ event: { id, event_type, occurred_at, data, agent } }`. */
export const PagerdutyWebhook = z.looseObject({
  event: z.looseObject({
    id: z.string().min(1),
    event_type: z.string().min(1),
    resource_type: z.string().min(1),
    occurred_at: z.string().min(1),
    agent: z.looseObject({ id: z.string().min(1) }).nullish(),
    data: z.looseObject({}).nullish(),
  }),
});

const PagerdutyIncident = z.looseObject({
  id: z.string().min(1),
  title: z.string().default(''),
  html_url: z.string().optional(),
  urgency: z.string().optional(),
  service: z.looseObject({ id: z.string().min(1), summary: z.string().min(1) }),
});

/** Incident events open or update an incident; pings and service events are not incidents. */
export function parsePagerdutyWebhook(json: unknown, receivedAt: string): AlertParse {
  const parsed = PagerdutyWebhook.safeParse(json);
  if (!parsed.success) return invalidShape('PagerDuty webhook', parsed.error);
  const { event } = parsed.data;
  if (event.resource_type !== 'incident' || !event.event_type.startsWith('incident.')) {
    return { type: 'ignore', reason: `PagerDuty ${event.event_type} is not an incident event` };
  }
  const incident = PagerdutyIncident.safeParse(event.data);
  if (!incident.success) return invalidShape('PagerDuty incident', incident.error);
  const { data } = incident;
  return alertEnvelope(
    {
      kind: 'alert',
      eventId: event.id,
      receivedAt,
      source: 'pagerduty',
      name: data.service.summary,
      serviceId: data.service.id,
      incidentKey: data.id,
      state: event.event_type,
      opens: event.event_type === 'incident.triggered',
      user: event.agent ? `pagerduty:${event.agent.id}` : 'pagerduty',
      title: data.title,
      text: `${event.event_type}${data.urgency ? ` (urgency ${data.urgency})` : ''}: ${data.title}`,
      ...(data.html_url ? { url: data.html_url } : {}),
      ts: eventTs(event.occurred_at, event.id),
    },
    event.occurred_at,
  );
}

function alertEnvelope(candidate: InboxAlert, eventTime: string): AlertParse {
  const checked = InboxAlert.safeParse(candidate);
  if (!checked.success) return invalidShape(`${candidate.source} alert envelope`, checked.error);
  return { type: 'enqueue', envelope: checked.data, eventTime };
}
