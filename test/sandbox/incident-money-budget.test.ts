import { describe, expect, it } from 'vitest';
import { type RecordedModelRequest, withUsage } from '../support/scripted-model.ts';
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

/** The money budget (`maxCostUsd`, the ledger's priced cost) ends the rounds the same way. */
describe('the money budget', () => {
  const h = useIncidentHarness({
    incidentInvestigation: { budget: { maxTokens: 10_000_000, maxCostUsd: 0.5 } },
  });

  it('ends the rounds when the priced model cost reaches maxCostUsd, and says so in the conclusion and the thread', async () => {
    const id = await slashInvestigate(h, 'trigger-money', 'checkout latency');
    // 20,000 output tokens a call: $0.20 at the sandbox model's $10 per million.
    const costs = (step: ReturnType<typeof answer>) => async (request: RecordedModelRequest) =>
      withUsage(step(request), { input_tokens: 0, output_tokens: 20_000 });
    h.script(id, {
      submit_triage: [costs(answer(TRIAGE))],
      submit_hypotheses: [costs(answer(HYPOTHESES))],
      'submit_evaluation:H1': [costs(answer(evaluation('H1', 'continue', 'weak')))],
      'submit_evaluation:H2': [costs(answer(evaluation('H2', 'continue', 'weak')))],
      'submit_evaluation:H3': [costs(answer(evaluation('H3', 'continue', 'weak')))],
      submit_conclusion: [answer({ ...INCONCLUSIVE, gaps: [] })],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const record = await h.incidents.getRecord(id);
    expect(record?.roundsDone).toBe(1);
    expect(record?.concludedBecause).toBe('money_budget');
    expect(record?.conclusion).toMatchObject({
      gaps: ['The investigation stopped because the cost budget (money spent on the model) was spent.'],
    });
    const conclusionPrompt = h.requestsOf(id).find(({ queue }) => queue === 'submit_conclusion')?.request;
    expect(promptOfTurn(conclusionPrompt as RecordedModelRequest)).toContain(
      'The rounds ended because the cost budget (money spent on the model) was spent (tokens used 100000 of 10000000, cost $1.00 of $0.50)',
    );
    // The stored metrics reach the console's ledger through the sandbox's conversation detail.
    const detail = await h.driver.api<{ conversation: { workflowMetrics?: Record<string, unknown> } }>(
      `/sandbox/conversations/${id}`,
    );
    expect(detail.conversation.workflowMetrics).toMatchObject({
      rounds: 1,
      hypothesesFormed: 3,
      outcome: 'inconclusive',
    });
    const thread = await h.messages(INCIDENTS, await threadOf(h, id));
    expect(
      thread.some((m) => m.text.includes('ended: the cost budget (money spent on the model) was spent')),
    ).toBe(true);
  });
});
