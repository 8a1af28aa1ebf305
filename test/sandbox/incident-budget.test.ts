import { describe, expect, it } from 'vitest';
import { type RecordedModelRequest, withUsage } from '../support/scripted-model.ts';
import { promptOfTurn } from './bug-harness.ts';
import {
  answer,
  evaluation,
  finished,
  HYPOTHESES,
  INCONCLUSIVE,
  NO_PLAN,
  slashInvestigate,
  TRIAGE,
  useIncidentHarness,
} from './incident-harness.ts';

/** The cost budget (model tokens, from the conversation's ledger) ends the rounds, and the conclusion says so. */
describe('the cost budget', () => {
  const h = useIncidentHarness({ incidentInvestigation: { budget: { maxTokens: 1_000 } } });

  it('ends the rounds when the model tokens reach the budget, and concludes INCONCLUSIVE saying so', async () => {
    const id = await slashInvestigate(h, 'trigger-budget', 'checkout latency');
    const costs =
      (tokens: number, step: ReturnType<typeof answer>) => async (request: RecordedModelRequest) =>
        withUsage(step(request), { input_tokens: tokens, output_tokens: 0 });
    h.script(id, {
      submit_triage: [costs(300, answer(TRIAGE))],
      submit_hypotheses: [costs(300, answer(HYPOTHESES))],
      'submit_evaluation:H1': [costs(200, answer(evaluation('H1', 'continue', 'weak')))],
      'submit_evaluation:H2': [costs(200, answer(evaluation('H2', 'continue', 'weak')))],
      'submit_evaluation:H3': [costs(200, answer(evaluation('H3', 'continue', 'weak')))],
      submit_conclusion: [answer({ ...INCONCLUSIVE, gaps: [] })],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const record = await h.incidents.getRecord(id);
    expect(record?.roundsDone).toBe(1);
    expect(record?.concludedBecause).toBe('cost_budget');
    expect(record?.conclusion).toMatchObject({
      outcome: 'inconclusive',
      gaps: ['The investigation stopped because the cost budget (model tokens) was spent.'],
    });
    const nodes = await h.incidents.listNodes(id);
    expect(nodes.every((n) => n.status === 'open')).toBe(true);
    const conclusionPrompt = h.requestsOf(id).find(({ queue }) => queue === 'submit_conclusion')?.request;
    expect(promptOfTurn(conclusionPrompt as RecordedModelRequest)).toContain(
      'The rounds ended because the cost budget (model tokens) was spent (tokens used 1200 of 1000)',
    );
  });
});
