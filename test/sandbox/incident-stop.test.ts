import { describe, expect, it } from 'vitest';
import type { ModelReply, RecordedModelRequest } from '../support/scripted-model.ts';
import {
  answer,
  evaluation,
  finished,
  HYPOTHESES,
  INCIDENTS,
  INCONCLUSIVE,
  NO_PLAN,
  RESPONDER,
  slashInvestigate,
  TRIAGE,
  threadOf,
  useIncidentHarness,
} from './incident-harness.ts';

/**
 * Stop in an incident's thread ends the agent turn running now and nothing else: the
 * investigation waits for the responders and goes on with what they write (a Stop while no
 * turn runs is answered privately: test/kernel/stop.test.ts).
 */

/** A model call held until `release()`; `started` tells when it is out. */
function held(then: (request: RecordedModelRequest) => ModelReply) {
  let release = () => {};
  let started = false;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const step = async (request: RecordedModelRequest) => {
    started = true;
    await gate;
    return then(request);
  };
  return { step, release: () => release(), started: async () => started };
}

const REST = {
  submit_hypotheses: [answer(HYPOTHESES)],
  'submit_evaluation:H1': [answer(evaluation('H1', 'prune', 'none'))],
  'submit_evaluation:H2': [answer(evaluation('H2', 'prune', 'none'))],
  'submit_evaluation:H3': [answer(evaluation('H3', 'prune', 'contradicting'))],
  submit_conclusion: [answer(INCONCLUSIVE)],
  submit_remediation_plan: [answer(NO_PLAN)],
};

describe('Stop in an incident investigation', () => {
  const h = useIncidentHarness(
    {
      alarms: { names: ['checkout-p99'] },
      incidentInvestigation: {
        services: [{ name: 'checkout', alarmNames: ['checkout-p99'] }],
        // The wait after a Stop lasts as long as an approval's: the longest, so that the
        // sandbox's shrunk time cannot end it before the responder writes on a busy machine.
        approvalWaitSeconds: 86_400,
      },
    },
    { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } },
  );

  it('ends the running turn only: the investigation waits for the responders, then goes on', async () => {
    await h.post(INCIDENTS, RESPONDER, 'checkout is slow, investigating');
    const id = await slashInvestigate(h, 'trigger-stop', 'checkout latency');
    const triage = held((request) => answer(TRIAGE)(request));
    h.script(id, { submit_triage: [triage.step, answer(TRIAGE)], ...REST });
    const thread = await threadOf(h, id);
    await h.eventually(triage.started, (out) => out, 'the triage model call to be out');

    await h.post(INCIDENTS, RESPONDER, 'stop', thread);
    await h.eventually(
      () => h.messages(INCIDENTS, thread),
      (messages) => messages.some((m) => m.bot && m.text.includes(`Stopped by <@${RESPONDER}>`)),
      'the thread to say who stopped it',
    );
    triage.release();
    const waiting = await h.eventually(
      () => h.store.getConversation(id, { consistent: true }),
      (c) => c?.wait !== undefined,
      'the investigation to wait for the responders',
    );
    expect(waiting).toMatchObject({ status: 'active', phase: 'awaiting_responders', closeRequested: false });
    expect((await h.execution(id)).status).toBe('RUNNING');
    const texts = (await h.messages(INCIDENTS, thread)).filter((m) => m.bot).map((m) => m.text);
    expect(texts.some((t) => t.includes('Investigation stopped'))).toBe(false);
    expect(texts.some((t) => t.includes('The investigation waits'))).toBe(true);

    await h.post(INCIDENTS, RESPONDER, 'Look at the payment provider first', thread);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');
    const ended = await h.store.getConversation(id, { consistent: true });
    expect(ended?.status).not.toBe('closed');
    // The triage's next turn had the responder's words.
    const triageCalls = h.requestsOf(id).filter((r) => r.queue === 'submit_triage');
    expect(JSON.stringify(triageCalls.at(-1)?.request.body)).toContain('Look at the payment provider first');
  });
});
