import { describe, expect, it } from 'vitest';
import { EVENTBRIDGE_PATH } from '../../local/sandbox-options.ts';
import { alarmStateChange } from '../ingress/webhooks.ts';
import type { RecordedModelRequest } from '../support/scripted-model.ts';
import { promptOfTurn } from './bug-harness.ts';
import {
  answer,
  evaluation,
  finished,
  HYPOTHESES,
  INCIDENTS,
  INCONCLUSIVE,
  NO_PLAN,
  slashInvestigate,
  TRIAGE,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * The incident investigation end to end in the sandbox: `/investigate` as a signed slash
 * command in, the incident thread's phase messages out, a scripted model per phase and per
 * hypothesis, the tree and the conclusion read back from the table.
 */
describe('an incident investigation without evidence', () => {
  const h = useIncidentHarness({
    alarms: { names: ['checkout-p99'] },
    incidentInvestigation: {
      mapConcurrency: 3,
      services: [{ name: 'checkout', alarmNames: ['checkout-p99'] }],
    },
  });

  it('prunes every hypothesis and concludes INCONCLUSIVE with its gaps', async () => {
    const id = await slashInvestigate(h, 'trigger-pruned', 'checkout latency');
    h.script(id, {
      submit_triage: [answer(TRIAGE)],
      submit_hypotheses: [answer(HYPOTHESES)],
      'submit_evaluation:H1': [answer(evaluation('H1', 'prune', 'none'))],
      'submit_evaluation:H2': [answer(evaluation('H2', 'prune', 'none'))],
      'submit_evaluation:H3': [answer(evaluation('H3', 'prune', 'contradicting'))],
      submit_conclusion: [answer(INCONCLUSIVE)],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    const thread = await threadOf(h, id);
    const execution = await finished(h, id);
    expect(execution.status).toBe('SUCCEEDED');

    const nodes = await h.incidents.listNodes(id);
    expect(nodes.map((n) => [n.id, n.status])).toEqual([
      ['H1', 'pruned'],
      ['H2', 'pruned'],
      ['H3', 'pruned'],
    ]);
    const record = await h.incidents.getRecord(id);
    expect(record?.concludedBecause).toBe('all_pruned');
    expect(record?.conclusion).toMatchObject({ outcome: 'inconclusive', confidence: 'low' });
    expect(record?.conclusion?.gaps).toEqual([
      'No provider-side telemetry',
      'The investigation stopped because every hypothesis was pruned.',
    ]);
    expect(record?.metrics).toMatchObject({
      hypothesesFormed: 3,
      hypothesesPruned: 3,
      hypothesesConfirmed: 0,
      outcome: 'inconclusive',
    });

    const posts = (await h.messages(INCIDENTS, thread)).filter((m) => m.bot).map((m) => m.text);
    expect(posts.some((t) => t.includes('*INCONCLUSIVE*') && t.includes('No provider-side telemetry'))).toBe(
      true,
    );
    expect(posts.some((t) => t.includes('*Hypotheses* — ended: every hypothesis was pruned'))).toBe(true);
    const conversation = await h.store.getConversation(id);
    expect(conversation?.status).toBe('resolved');
  });

  it('opens an incident thread for an alarm of a configured service, with the alert as the first message', async () => {
    const response = await fetch(`${h.sandbox.url}${EVENTBRIDGE_PATH}`, {
      method: 'POST',
      body: JSON.stringify(alarmStateChange({ alarmName: 'checkout-p99', state: 'ALARM', at: new Date() })),
    });
    expect(response.status).toBe(200);
    const listed = await h.eventually(
      async () =>
        (
          await h.driver.api<{ conversations: { id: string; workflow: string }[] }>('/sandbox/conversations')
        ).conversations.filter(
          (c) => c.workflow === 'incident_investigation' && c.id.includes('alert-cloudwatch'),
        ),
      (list) => list.length === 1,
      'the alarm to start an incident',
    );
    const id = listed[0]?.id ?? '';
    h.script(id, {
      submit_triage: [answer(TRIAGE)],
      submit_hypotheses: [answer(HYPOTHESES)],
      'submit_evaluation:H1': [answer(evaluation('H1', 'prune', 'none'))],
      'submit_evaluation:H2': [answer(evaluation('H2', 'prune', 'none'))],
      'submit_evaluation:H3': [answer(evaluation('H3', 'prune', 'none'))],
      submit_conclusion: [answer(INCONCLUSIVE)],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    const thread = await threadOf(h, id);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const opening = (await h.messages(INCIDENTS)).find((m) => m.ts === thread);
    expect(opening?.text).toContain('Incident investigation of the cloudwatch alert checkout-p99');
    const triage = h.requestsOf(id).find(({ queue }) => queue === 'submit_triage');
    expect(promptOfTurn(triage?.request as RecordedModelRequest)).toContain('[cloudwatch ALARM]');
  });
});
