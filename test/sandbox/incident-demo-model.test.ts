import { describe, expect, it } from 'vitest';
import {
  DEMO_INCIDENT_ALARM_PREFIXES,
  DEMO_INCIDENT_SETTINGS,
} from '../../local/telemetry/demo-incident-settings.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import {
  APPROVER,
  finished,
  INCIDENTS,
  slashInvestigate,
  stepButtons,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * `/investigate checkout latency` as `npm run dev` runs it: the offline demo model plays the
 * agents, calling the real telemetry tools over the seeded demo incident (a payment-api
 * deploy, then provider timeouts) and citing the evidence ids they return.
 */
describe('the incident investigation with the offline demo model', () => {
  const h = useIncidentHarness(
    { incidentInvestigation: DEMO_INCIDENT_SETTINGS, alarms: { namePrefixes: DEMO_INCIDENT_ALARM_PREFIXES } },
    { model: 'demo' },
  );

  it('finds the planted cause with cited evidence, and runs the runbook skill once approved', async () => {
    const id = await slashInvestigate(h, 'trigger-demo', 'checkout latency');
    const thread = await threadOf(h, id);
    // The plan's skill step waits for an approver: approve it, as on call would.
    const step = await stepButtons(h, thread, 1);
    await h.press(INCIDENTS, APPROVER, step.ts, step.approve.action_id, step.approve.value);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const nodes = await h.incidents.listNodes(id);
    const confirmed = nodes.filter((n) => n.status === 'confirmed');
    expect(confirmed.map((n) => n.statement)).toEqual([
      `${DEMO_LABEL} payment-api, which checkout depends on, is failing or slow [service: payment-api]`,
    ]);
    expect(nodes.find((n) => n.statement.includes('session-cache'))?.status).toBe('pruned');
    const record = await h.incidents.getRecord(id);
    expect(record?.conclusion?.outcome).toBe('root_cause');
    expect(record?.conclusion?.confidence).toBe('high');
    expect(record?.conclusion?.evidenceChain.flatMap((l) => l.evidenceIds)).toEqual([
      expect.stringMatching(/^ev-\d+$/),
      expect.stringMatching(/^ev-\d+$/),
    ]);
    expect(record?.plan?.matchedRunbooks.map((r) => r.name)).toEqual(['payment-provider-timeouts']);
    expect(record?.plan?.steps[0]).toMatchObject({
      skill: 'rollback_deployment',
      requiresApproval: true,
      status: 'succeeded',
      result: {
        ok: true,
        detail: expect.stringContaining('[demo skill] rollback_deployment applied with service=payment-api'),
      },
    });
    expect(record?.plan?.status).toBe('completed');

    const posts = (await h.messages(INCIDENTS, thread)).filter((m) => m.bot).map((m) => m.text);
    expect(posts.some((t) => t.includes(':dart: *Root cause*'))).toBe(true);
    expect(posts.some((t) => t.startsWith(':hammer_and_wrench: *Remediation* — completed'))).toBe(true);
  });
});
