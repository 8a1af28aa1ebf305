import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { fakeStreams } from '../../local/slack/streams.ts';
import { toolUse } from '../support/scripted-model.ts';
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
 * Live progress of a real incident investigation in the sandbox: each phase's turn streams
 * its phase plan and a task per telemetry query into the incident thread, and the tasks are
 * exactly the queries the model made.
 */

function toolCallsIn(body: MessageCreateParamsNonStreaming): { id: string; name: string }[] {
  return body.messages.flatMap((message) =>
    message.role === 'assistant' && Array.isArray(message.content)
      ? message.content.flatMap((block) =>
          block.type === 'tool_use' && !block.name.startsWith('submit_')
            ? [{ id: block.id, name: block.name }]
            : [],
        )
      : [],
  );
}

describe('live progress of an incident investigation', () => {
  const h = useIncidentHarness(
    {
      alarms: { names: ['checkout-p99'] },
      incidentInvestigation: {
        mapConcurrency: 3,
        services: [{ name: 'checkout', alarmNames: ['checkout-p99'] }],
      },
    },
    { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } },
  );

  it("streams the triage's telemetry queries as tasks under the investigation's phases", async () => {
    // Slack knows every member; the fake workspace learns a user from a first post.
    await h.post(INCIDENTS, RESPONDER, 'checkout is slow, investigating');
    const id = await slashInvestigate(h, 'trigger-progress', 'checkout latency');
    h.script(id, {
      submit_triage: [
        toolUse('query_logs', {
          service: 'checkout',
          since: '2015-11-23T14:00:00Z',
          until: '2015-11-23T14:15:00Z',
        }),
        toolUse('recent_deployments', { service: 'checkout', lastMinutes: 60 }),
        answer(TRIAGE),
      ],
      submit_hypotheses: [answer(HYPOTHESES)],
      'submit_evaluation:H1': [answer(evaluation('H1', 'prune', 'none'))],
      'submit_evaluation:H2': [answer(evaluation('H2', 'prune', 'none'))],
      'submit_evaluation:H3': [answer(evaluation('H3', 'prune', 'contradicting'))],
      submit_conclusion: [answer(INCONCLUSIVE)],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    const thread = await threadOf(h, id);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const streams = fakeStreams(h.sandbox.slack.workspace).filter((s) => s.threadTs === thread);
    // One timeline for the round: the triage opens it (the first turn with tool calls), and
    // the turns after it, which made none, add nothing but their stage; the plan's turn closes it.
    expect(streams).toHaveLength(1);
    expect(streams.every((s) => s.state === 'completed' && s.mode === 'plan')).toBe(true);
    const [triage] = streams;
    expect(triage?.planTitle).toBe('Investigating the incident');
    const triageRequests = h.requestsOf(id).filter((r) => r.queue === 'submit_triage');
    const made = toolCallsIn(triageRequests.at(-1)?.request.body as MessageCreateParamsNonStreaming);
    expect(made.map((c) => c.name)).toEqual(['query_logs', 'recent_deployments']);
    const tasks = triage?.tasks.filter((t) => !t.id.startsWith('stage:'));
    expect(tasks?.map((t) => t.id)).toEqual(made.map((c) => c.id));
    expect(tasks?.map((t) => t.title)).toEqual([
      'Querying checkout logs 14:00-14:15',
      'Listing checkout deployments (last 60 min)',
    ]);
    expect(tasks?.every((t) => t.status === 'complete' || t.status === 'error')).toBe(true);
    // The triage starts with its phase in progress; each later turn moves the plan on, and the
    // plan's turn, the round's last, closes it with every phase done.
    const triageStart = triage?.calls[0]?.chunks.filter(
      (c) => c.type === 'task_update' && String(c.id).startsWith('stage:'),
    );
    expect(triageStart?.map((c) => c.status)).toEqual([
      'in_progress',
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    expect(triage?.tasks.filter((t) => t.id.startsWith('stage:')).map((t) => t.status)).toEqual([
      'complete',
      'complete',
      'complete',
      'complete',
      'complete',
    ]);
  });

  it('shows one timeline for the round: the triage and the hypotheses tested at once, closed at its end', async () => {
    await h.post(INCIDENTS, RESPONDER, 'checkout is slow again');
    const id = await slashInvestigate(h, 'trigger-round', 'checkout latency');
    const logs = { service: 'checkout', since: '2015-11-23T14:00:00Z', until: '2015-11-23T14:15:00Z' };
    h.script(id, {
      submit_triage: [toolUse('query_logs', logs), answer(TRIAGE)],
      submit_hypotheses: [answer(HYPOTHESES)],
      'submit_evaluation:H1': [toolUse('query_logs', logs), answer(evaluation('H1', 'prune', 'none'))],
      'submit_evaluation:H2': [toolUse('query_logs', logs), answer(evaluation('H2', 'prune', 'none'))],
      'submit_evaluation:H3': [
        toolUse('query_logs', logs),
        answer(evaluation('H3', 'prune', 'contradicting')),
      ],
      submit_conclusion: [answer(INCONCLUSIVE)],
      submit_remediation_plan: [answer(NO_PLAN)],
    });
    const thread = await threadOf(h, id);
    expect((await finished(h, id)).status).toBe('SUCCEEDED');

    const streams = fakeStreams(h.sandbox.slack.workspace).filter((s) => s.threadTs === thread);
    expect(streams).toHaveLength(1);
    const [round] = streams;
    expect(round?.state).toBe('completed');
    // Every turn's query is in it: the triage's and the three hypotheses', tested at once.
    const made = h
      .requestsOf(id)
      .flatMap((r) => toolCallsIn(r.request.body as MessageCreateParamsNonStreaming))
      .map((c) => c.id);
    const tasks = round?.tasks.filter((t) => !t.id.startsWith('stage:'));
    expect(tasks?.map((t) => t.id).sort()).toEqual([...new Set(made)].sort());
    expect(tasks).toHaveLength(4);
    expect(tasks?.every((t) => t.status === 'complete')).toBe(true);
    // Closed: the message keeps the round's four steps, and its Stop button is gone.
    const closed = h.sandbox.slack.workspace
      .messages({ channel: INCIDENTS, thread_ts: thread })
      .find((m) => m.ts === round?.ts);
    expect(JSON.stringify(closed?.blocks)).toContain('Done: 4 steps');
    expect(JSON.stringify(closed?.blocks)).not.toContain('stop_turn');
  });
});
