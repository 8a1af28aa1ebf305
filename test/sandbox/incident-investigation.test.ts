import { describe, expect, it } from 'vitest';
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
 * Seed 003's incident investigation end to end in the sandbox: `/investigate` as a signed slash
 * command in, the incident thread's phase messages out, a scripted model per phase and per
 * hypothesis, the tree and the conclusion read back from the table.
 */
describe('an incident investigation without evidence', () => {
  const h = useIncidentHarness({ incidentInvestigation: { mapConcurrency: 3 } });

  it('prunes every hypothesis and concludes INCONCLUSIVE with its gaps', { timeout: 120_000 }, async () => {
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
});
