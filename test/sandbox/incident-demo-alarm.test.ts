import { describe, expect, it } from 'vitest';
import { EVENTBRIDGE_PATH } from '../../local/sandbox-options.ts';
import {
  DEMO_INCIDENT_ALARM_PREFIXES,
  DEMO_INCIDENT_SETTINGS,
} from '../../local/telemetry/demo-incident-settings.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import { alarmStateChange } from '../ingress/webhooks.ts';
import { finished, INCIDENTS, threadOf, useIncidentHarness } from './incident-harness.ts';

/**
 * An incident started by a CloudWatch alarm, as `npm run dev` runs it: the offline demo model plays
 * every agent. The alarmed service (payment-api) has only an external dependency, so the
 * hypothesizer must still form the three hypotheses its schema asks for.
 */
/** payment-api's 5xx alarm going into ALARM, described as its owners would describe it. */
function paymentApiAlarm() {
  const event = alarmStateChange({ alarmName: 'payment-api-5xx', state: 'ALARM', at: new Date() });
  const detail = event.detail as Record<string, unknown>;
  return {
    ...event,
    detail: { ...detail, configuration: { description: 'payment-api 5xx above 5%', metrics: [] } },
  };
}

describe('an alarm-started incident investigation with the offline demo model', () => {
  const h = useIncidentHarness(
    { incidentInvestigation: DEMO_INCIDENT_SETTINGS, alarms: { namePrefixes: DEMO_INCIDENT_ALARM_PREFIXES } },
    { model: 'demo' },
  );

  it('forms at least three hypotheses and reaches a conclusion', async () => {
    const response = await fetch(`${h.sandbox.url}${EVENTBRIDGE_PATH}`, {
      method: 'POST',
      body: JSON.stringify(paymentApiAlarm()),
    });
    expect(response.status).toBe(200);
    const listed = await h.eventually(
      async () =>
        (
          await h.driver.api<{ conversations: { id: string; workflow: string }[] }>('/sandbox/conversations')
        ).conversations.filter((c) => c.workflow === 'incident_investigation'),
      (list) => list.length === 1,
      'the alarm to start an incident',
    );
    const id = listed[0]?.id ?? '';
    const thread = await threadOf(h, id);
    const execution = await finished(h, id);
    expect(execution.status).toBe('SUCCEEDED');

    const nodes = await h.incidents.listNodes(id);
    (await import('node:fs')).writeFileSync(
      '/tmp/ux-nodes.json',
      JSON.stringify(nodes.map((n) => [n.id, n.status, n.statement])),
    );
    expect(nodes.map((n) => [n.statement, n.status])).toEqual([
      [`${DEMO_LABEL} A recent deployment of payment-api regressed it [service: payment-api]`, 'confirmed'],
      [
        `${DEMO_LABEL} acmepay (external), which payment-api calls, is failing or slow [outside: acmepay (external)] [service: payment-api]`,
        'pruned',
      ],
      [`${DEMO_LABEL} payment-api lacks capacity for its load [service: payment-api]`, 'pruned'],
    ]);
    const record = await h.incidents.getRecord(id);
    expect(record?.conclusion?.outcome).toBe('root_cause');
    expect(record?.conclusion?.hypothesisId).toBe('H1');
    const posts = (await h.messages(INCIDENTS, thread)).filter((m) => m.bot).map((m) => m.text);
    expect(posts.some((t) => t.includes(':dart: *Root cause*'))).toBe(true);
  });
});
