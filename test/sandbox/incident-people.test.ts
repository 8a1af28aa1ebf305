import { describe, expect, it } from 'vitest';
import type { RecordedModelRequest } from '../support/scripted-model.ts';
import { promptOfTurn } from './bug-harness.ts';
import {
  answer,
  evaluation,
  finished,
  HYPOTHESES,
  INCIDENTS,
  INCONCLUSIVE,
  type IncidentHarness,
  NO_PLAN,
  slashInvestigate,
  TRIAGE,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * People in the loop: a message added in the incident thread while hypotheses are
 * investigated in parallel reaches exactly one later agent turn (I3).
 */

const CONTEXT = 'FYI we rotated the payment provider API key at 21:05';

/** Waits until the thread's message is stored for the incident (the Router has it). */
const stored = (h: IncidentHarness, id: string) =>
  h.eventually(
    () => h.store.listMessages(id),
    (messages) => messages.some((m) => m.text === CONTEXT),
    'the context message to be stored',
  );

describe('people in the loop', () => {
  const h = useIncidentHarness({ incidentInvestigation: { mapConcurrency: 2 } });

  it('hands a message sent during the parallel investigation to exactly one later agent turn', async () => {
    const id = await slashInvestigate(h, 'trigger-context', 'checkout latency');
    const thread = await threadOf(h, id);
    // H1 and H2 run first (two at a time); the message arrives while both are still running.
    const holdUntilStored = (hypothesis: string, post: boolean) => async (request: RecordedModelRequest) => {
      if (post) await h.post(INCIDENTS, 'U_DEV', CONTEXT, thread);
      await stored(h, id);
      return answer(evaluation(hypothesis, 'prune', 'none'))(request);
    };
    h.script(id, {
      submit_triage: [answer(TRIAGE)],
      submit_hypotheses: [answer(HYPOTHESES)],
      'submit_evaluation:H1': [holdUntilStored('H1', true)],
      'submit_evaluation:H2': [holdUntilStored('H2', false)],
      'submit_evaluation:H3': [answer(evaluation('H3', 'prune', 'none'))],
      submit_conclusion: [answer(INCONCLUSIVE)],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const turnsWithIt = h.requestsOf(id).filter(({ request }) => promptOfTurn(request).includes(CONTEXT));
    expect(turnsWithIt.map(({ queue }) => queue)).toEqual(['submit_evaluation:H3']);
    expect(promptOfTurn(turnsWithIt[0]?.request as RecordedModelRequest)).toContain(
      `"from":"U_DEV","role":"responder","verified":true,"text":"${CONTEXT}`,
    );
    const message = (await h.store.listMessages(id)).find((m) => m.text === CONTEXT);
    expect(message?.deliveredInTurn).toBeGreaterThan(0);
    expect((await h.incidents.getRecord(id))?.metrics?.clarificationsNeeded).toBe(1);
  });
});
