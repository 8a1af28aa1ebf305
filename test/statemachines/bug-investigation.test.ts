import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUG_INVESTIGATION_STATES as S,
  BUG_INVESTIGATION_TEXTS as T,
} from '../../statemachines/bug-investigation/states.ts';
import {
  bugDefinition,
  CONVERSATION_ID,
  EXECUTION_ARN,
  error,
  message,
  runBugInvestigation,
  START,
  STATE_MACHINE_ARN,
  turn,
} from './bug-harness.ts';

/**
 * The bug investigation's loop (investigate, ask, wait, post findings), run from the deployed definition with
 * stand-in tasks that check every payload against its contract (see bug-harness.ts).
 */

const report = message('reporter', 'The export button does nothing', START.threadTs ?? '');
const answer = message('reporter', 'Firefox 128 on Linux', '1700000300.000100');
const developerReply = message('developer', 'Can you check the CSV path too?', '1700000400.000100');

// The default configuration's definition is synthesized once, before the runs that share it.
beforeAll(() => {
  bugDefinition();
});

describe('a bug investigation', () => {
  it('asks the reporter, investigates on with the answer, posts findings, and resolves when developers stay silent', async () => {
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter'), turn('post_findings', { sessionId: 'session-1' })],
      drains: [{ messages: [report] }, { messages: [answer] }],
      waits: ['message', 'timeout'],
    });

    expect(run.failure).toBeUndefined();
    // Verification step 9: the conversation's phases over time.
    expect(run.phases).toEqual([
      'investigating',
      'awaiting_reporter',
      'investigating',
      'awaiting_dev',
      'resolved',
    ]);
    expect(run.statuses).toEqual(['active', 'active', 'pending_verification', 'resolved']);
    expect(run.agentInputs).toEqual([
      {
        conversationId: CONVERSATION_ID,
        profile: 'bug_investigator',
        turn: 1,
        mode: 'initial',
        state: 'investigating',
        messages: [report],
        notes: [],
      },
      {
        conversationId: CONVERSATION_ID,
        profile: 'bug_investigator',
        turn: 2,
        mode: 'continuation',
        state: 'awaiting_reporter',
        sessionId: 'session-1',
        messages: [answer],
        notes: [],
      },
    ]);
    expect(run.waits.map(({ state, input }) => [state, input.accepts, input.phase])).toEqual([
      [S.waitForReporter, ['reporter'], 'awaiting_reporter'],
      [S.waitForDevelopers, 'any', 'awaiting_dev'],
    ]);
    // The closing turn's Drain records what came after the last agent turn.
    expect(run.drains.map(({ state, input }) => [state, input.turn])).toEqual([
      [S.drain, 1],
      [S.drain, 2],
      [S.cleanUp, 3],
    ]);
  });

  it('acknowledges in the reporter thread, asks there, and posts the findings for developers in a summary thread', async () => {
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter'), turn('post_findings')],
      drains: [{ messages: [report] }, { messages: [answer] }],
      waits: ['message', 'timeout'],
    });

    const [acknowledgement, question, findings] = run.posts;
    expect(run.posts.map((post) => post.state)).toEqual([S.acknowledgeReport, S.askReporter, S.postFindings]);
    expect(acknowledgement?.input).toMatchObject({
      channel: START.channel,
      threadTs: START.threadTs,
      text: T.acknowledgeReport,
    });
    expect(question?.input).toMatchObject({ channel: START.channel, threadTs: START.threadTs });
    expect(question?.rendered.text).toBe(':question: Which browser were you using?');
    expect(findings?.input).toMatchObject({
      channel: 'C_BUG_SUMMARIES',
      anchor: { name: 'summary', ownerRole: null, othersRole: 'developer' },
      template: { name: 'bug_findings', data: { executionArn: EXECUTION_ARN } },
    });
    expect(findings?.input.threadTs).toBeUndefined();
    expect(findings?.rendered.text).toContain('summary after post_findings');
    expect(JSON.stringify(findings?.rendered.blocks)).toContain(
      `https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/${EXECUTION_ARN}`,
    );
    // Every post of a state and turn has its own idempotency key.
    expect(new Set(run.posts.map((post) => post.input.idempotencyKey)).size).toBe(run.posts.length);
  });

  it('takes at most 12 state transitions per reporter round trip (benchmark goal)', async () => {
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter'), turn('ask_reporter'), turn('resolved')],
      drains: [{ messages: [report] }, { messages: [answer] }, { messages: [answer] }],
      waits: ['message', 'message'],
    });

    const routes = run.statesEntered.flatMap((state, index) => (state === S.routeOnAction ? [index] : []));
    const roundTrip = run.statesEntered.slice(routes[0], routes[1]);
    expect(roundTrip).toEqual([
      S.routeOnAction,
      S.askReporter,
      S.awaitingReporter,
      S.waitForReporter,
      S.timeToHandOver,
      S.nextTurn,
      S.drain,
      S.closeRequested,
      S.continueInvestigation,
    ]);
    expect(roundTrip.length).toBeLessThanOrEqual(12);
  });

  it('tells the next turn that the reporter did not answer in time, and investigates on', async () => {
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter'), turn('resolved')],
      drains: [{ messages: [report] }],
      waits: ['timeout'],
      config: { reporterWaitSeconds: 5400 },
    });

    expect(run.agentInputs[1]).toMatchObject({
      turn: 2,
      mode: 'continuation',
      state: 'awaiting_reporter',
      messages: [],
      notes: [expect.stringContaining('did not answer your clarification question within 90 minutes')],
    });
  });

  it('tells the silence note to one turn only', async () => {
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter'), turn('continue'), turn('resolved')],
      drains: [{ messages: [report] }],
      waits: ['timeout'],
    });

    expect(run.agentInputs.map((input) => input.notes.length)).toEqual([0, 1, 0]);
    expect(run.agentInputs[2]?.state).toBe('awaiting_reporter');
  });

  it('posts the findings before resolving, then resolves and cleans up (seed: save, post, resolve)', async () => {
    const run = await runBugInvestigation({ agent: [turn('resolved')], drains: [{ messages: [report] }] });

    expect(run.posts.map((post) => post.state)).toEqual([S.acknowledgeReport, S.postFindings]);
    expect(run.statuses).toEqual(['active', 'resolved']);
    expect(run.waits).toEqual([]);
    expect(run.tasks.slice(-2)).toEqual([S.markResolved, S.cleanUp]);
  });

  it('escalates to the on-call group, starts SLA tracking on the escalation, and waits for developers', async () => {
    const run = await runBugInvestigation({
      agent: [turn('escalate', { severity: 'critical' }), turn('resolved', { sessionId: 'session-1' })],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['message'],
      config: { people: { on_call: { groups: ['S0PLATFORM'] } } },
    });

    const escalation = run.posts.find((post) => post.state === S.escalate);
    expect(escalation?.input).toMatchObject({
      channel: 'C_DEVELOPERS',
      anchor: { name: 'escalation', ownerRole: null, othersRole: 'developer' },
      template: { name: 'bug_escalation', data: { onCallGroupId: 'S0PLATFORM' } },
    });
    expect(escalation?.rendered.text).toMatch(/^<!subteam\^S0PLATFORM> Bug escalation \(critical severity\)/);
    expect(run.slaStarts).toEqual([
      {
        name: `${CONVERSATION_ID}-1`,
        input: {
          conversationId: CONVERSATION_ID,
          channel: 'C_DEVELOPERS',
          threadTs: escalation?.output.ts,
          severity: 'critical',
          level: 0,
        },
      },
    ]);
    expect(run.statuses).toContain('pending_verification');
    expect(run.waits.map(({ input }) => input.accepts)).toEqual(['any']);
  });

  it('announces a developer follow-up in the summary thread and posts later findings in that thread', async () => {
    const run = await runBugInvestigation({
      agent: [turn('post_findings'), turn('post_findings', { summary: 'updated' })],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['message', 'timeout'],
    });

    const findings = run.posts.find((post) => post.state === S.postFindings);
    const followUp = run.posts.find((post) => post.state === S.announceFollowUp);
    const updated = run.posts.find((post) => post.state === S.postUpdatedFindings);
    const summaryThread = { channel: 'C_BUG_SUMMARIES', threadTs: findings?.output.ts };
    expect(followUp?.input).toMatchObject({ ...summaryThread, text: T.followUp });
    expect(updated?.input).toMatchObject(summaryThread);
    expect(updated?.input.anchor).toBeUndefined();
    expect(updated?.rendered.text).toContain('updated');
    expect(run.agentInputs[1]).toMatchObject({
      mode: 'continuation',
      state: 'awaiting_dev',
      sessionId: 'session-1',
      messages: [developerReply],
    });
  });

  it('announces a developer follow-up once, not again when the follow-up turn runs out of its budget', async () => {
    const run = await runBugInvestigation({
      agent: [turn('post_findings'), turn('continue'), turn('resolved')],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['message'],
    });

    expect(run.posts.filter((post) => post.state === S.announceFollowUp)).toHaveLength(1);
    expect(run.agentInputs.map((input) => input.state)).toEqual([
      'investigating',
      'awaiting_dev',
      'awaiting_dev',
    ]);
  });

  it('acknowledges a close requested while it waits, resolves and cleans up without another turn', async () => {
    const close = {
      ...message('reporter', 'never mind', '1700000500.000100'),
      messageType: 'close' as const,
    };
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter')],
      drains: [{ messages: [report] }, { closeRequested: true, messages: [close] }],
      waits: ['close'],
    });

    expect(run.failure).toBeUndefined();
    expect(run.agentInputs).toHaveLength(1);
    expect(run.posts.at(-1)?.input).toMatchObject({
      channel: START.channel,
      threadTs: START.threadTs,
      text: T.acknowledgeClose,
    });
    expect(run.statuses.at(-1)).toBe('resolved');
    expect(run.phases.at(-1)).toBe('resolved');
    expect(run.tasks.slice(-3)).toEqual([S.acknowledgeClose, S.markResolved, S.cleanUp]);
  });

  it('closes even when the close cannot be acknowledged in Slack', async () => {
    const run = await runBugInvestigation({
      agent: [],
      drains: [{ closeRequested: true, messages: [report] }],
      failing: { [S.acknowledgeClose]: error('SlackApiError', 'channel_not_found') },
    });

    expect(run.failure).toBeUndefined();
    expect(run.statuses.at(-1)).toBe('resolved');
  });

  it('runs another turn in the same state when a turn ran out of its budget', async () => {
    const run = await runBugInvestigation({
      agent: [turn('continue'), turn('resolved')],
      drains: [{ messages: [report] }],
    });

    expect(run.agentInputs.map((input) => [input.turn, input.mode, input.state, input.sessionId])).toEqual([
      [1, 'initial', 'investigating', undefined],
      [2, 'continuation', 'investigating', 'session-1'],
    ]);
    expect(run.waits).toEqual([]);
  });

  it('takes the escalation path, through the findings, for an action it does not know', async () => {
    const unknown = { ...turn('post_findings'), action: 'investigate_more' };
    const run = await runBugInvestigation({
      agent: [unknown],
      drains: [{ messages: [report] }],
      waits: ['timeout'],
    });

    expect(run.failure).toBeUndefined();
    expect(run.posts.map((post) => post.state)).toEqual([S.acknowledgeReport, S.postFindings, S.escalate]);
    expect(run.slaStarts).toHaveLength(1);
    expect(run.waits.map(({ state }) => state)).toEqual([S.waitForDevelopers]);
  });

  it('escalates a first turn that failed after its retries with the configured severity, and tells the reporter', async () => {
    const run = await runBugInvestigation({
      agent: [error('Runtime.ExitError', 'Runtime exited with error: signal: killed')],
      drains: [{ messages: [report] }],
      waits: ['timeout'],
    });

    expect(run.failure).toBeUndefined();
    const escalation = run.posts.find((post) => post.state === S.escalate);
    // No assessment yet: agentLimits.escalationSeverity (medium by default), not a hard-coded one.
    expect(run.output.result).toMatchObject({ action: 'escalate', severity: 'medium', confidence: 0 });
    expect(escalation?.input.template?.data).toMatchObject({ result: { severity: 'medium', confidence: 0 } });
    expect(JSON.stringify(escalation?.rendered.blocks)).toContain(
      'Runtime exited with error: signal: killed',
    );
    expect(escalation?.rendered.text).toContain('The investigation turn failed (Runtime.ExitError)');
    expect(run.slaStarts.map(({ input }) => input.severity)).toEqual(['medium']);
    const told = run.posts.find((post) => post.state === S.tellReporterStopped);
    expect(told?.rendered.text).toContain(
      "I had to stop investigating this automatically, so I've asked the developers",
    );
    expect(told?.rendered.text).toContain('The investigation turn failed (Runtime.ExitError)');
  });

  it('keeps the session when a continuation fails, so the next turn still resumes it', async () => {
    const run = await runBugInvestigation({
      agent: [
        turn('post_findings', { sessionId: 'session-7', severity: 'low' }),
        error('Runtime.ExitError'),
        turn('resolved', { sessionId: 'session-7' }),
      ],
      drains: [{ messages: [report] }, { messages: [developerReply] }, { messages: [developerReply] }],
      waits: ['message', 'message'],
    });

    expect(run.agentInputs.map((input) => input.sessionId)).toEqual([undefined, 'session-7', 'session-7']);
    const escalations = run.posts.filter((post) => post.state === S.escalate);
    expect(escalations).toHaveLength(1);
    // The agent's last assessment, not a hard-coded severity.
    expect(escalations[0]?.input.template?.data).toMatchObject({ result: { severity: 'low' } });
  });

  it('starts without a session again when the first turn failed', async () => {
    const run = await runBugInvestigation({
      agent: [error('Lambda.Unknown'), turn('resolved')],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['message'],
    });

    expect(run.agentInputs.map((input) => [input.mode, input.sessionId])).toEqual([
      ['initial', undefined],
      ['initial', undefined],
    ]);
  });

  it('still waits for developers when SLA tracking cannot be started (the on-call group was paged)', async () => {
    const run = await runBugInvestigation({
      agent: [turn('escalate')],
      drains: [{ messages: [report] }],
      waits: ['timeout'],
      failing: { [S.startSlaTracking]: error('StepFunctions.StateMachineDoesNotExistException') },
    });

    expect(run.failure).toBeUndefined();
    expect(run.waits.map(({ state }) => state)).toEqual([S.waitForDevelopers]);
    expect(run.output.slaStartFailure).toMatchObject({
      Error: 'StepFunctions.StateMachineDoesNotExistException',
    });
  });

  it('marks the conversation failed and fails the execution when a kernel task fails for good', async () => {
    const run = await runBugInvestigation({
      agent: [],
      failing: { [S.drain]: error('ConversationNotFoundError', 'no conversation') },
    });

    expect(run.failure?.message).toMatch(/no conversation/);
    expect(run.statuses.at(-1)).toBe('failed');
    // "Mark failed" used to tell nobody.
    const told = run.posts.filter((post) => post.state === S.tellFailure);
    expect(told.map((post) => [post.input.channel, post.input.threadTs, post.rendered.text])).toEqual([
      [report.channel, expect.any(String), T.failed],
    ]);
  });

  it('says, in the reporter thread, that a message that came as the developers wait timed out was not handled', async () => {
    const run = await runBugInvestigation({
      agent: [turn('post_findings')],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['timeout'],
    });

    expect(run.failure).toBeUndefined();
    expect(run.statuses.at(-1)).toBe('resolved');
    const notice = run.posts.filter((post) => post.state === S.tellUnhandled);
    expect(notice.map((post) => [post.input.channel, post.rendered.text])).toEqual([
      [report.channel, T.unhandled],
    ]);
  });

  it('says nothing of unhandled messages when the clean-up drained only a close', async () => {
    const close = {
      ...message('reporter', 'never mind', '1700000500.000100'),
      messageType: 'close' as const,
    };
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter')],
      drains: [{ messages: [report] }, { closeRequested: true, messages: [] }, { messages: [close] }],
      waits: ['close'],
    });

    expect(run.statuses.at(-1)).toBe('resolved');
    expect(run.posts.map((post) => post.state)).not.toContain(S.tellUnhandled);
  });

  it('goes on investigating when the acknowledgement cannot be posted (a cosmetic post)', async () => {
    const run = await runBugInvestigation({
      agent: [turn('resolved')],
      drains: [{ messages: [report] }],
      failing: {
        [S.acknowledgeReport]: error('SlackUnavailableError', 'Slack chat.postMessage is unavailable'),
      },
    });

    expect(run.failure).toBeUndefined();
    expect(run.agentInputs).toHaveLength(1);
    expect(run.statuses.at(-1)).toBe('resolved');
  });

  it('goes on with the follow-up when its announcement cannot be posted', async () => {
    const run = await runBugInvestigation({
      agent: [
        turn('post_findings', { sessionId: 'session-2' }),
        turn('resolved', { sessionId: 'session-2' }),
      ],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['message'],
      failing: { [S.announceFollowUp]: error('SlackApiError', 'not_in_channel') },
    });

    expect(run.failure).toBeUndefined();
    expect(run.agentInputs).toHaveLength(2);
  });
});

describe('continue-as-new', () => {
  const config = { bugInvestigation: { continueAsNewAfterTurns: 2 } };

  it('hands the conversation to a fresh execution at the top of the loop once the threshold is reached', async () => {
    const run = await runBugInvestigation({
      agent: [turn('ask_reporter'), turn('continue', { sessionId: 'session-3' })],
      drains: [{ messages: [report] }, { messages: [answer] }],
      waits: ['message'],
      config,
    });

    expect(run.failure).toBeUndefined();
    expect(run.agentInputs).toHaveLength(2);
    expect(run.handovers).toHaveLength(1);
    const { parameters } = run.handovers[0] ?? { parameters: {} };
    // The running state machine's alias (its name from `$$.StateMachine.Id`, the account's parts
    // as the synthesized template writes them).
    const alias = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:${STATE_MACHINE_ARN.split(':')[6]}:live`;
    expect(parameters).toMatchObject({ StateMachineArn: alias, Name: `${CONVERSATION_ID}-2` });
    expect(parameters.Input).toEqual({
      ...START,
      turn: 2,
      turnContext: { state: 'awaiting_reporter', notes: [], followUp: false },
      threads: {},
      result: turn('continue', { sessionId: 'session-3' }),
      handedOverFrom: EXECUTION_ARN,
      handoverVersion: 1,
      AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID: EXECUTION_ARN,
    });
    expect(run.recordedHandovers).toEqual([
      expect.objectContaining({
        ExpressionAttributeValues: {
          ':name': { S: `${CONVERSATION_ID}-2` },
          ':arn': {
            S: `arn:aws:states:eu-west-1:123456789012:execution:BugInvestigation:${CONVERSATION_ID}-2`,
          },
          ':schemaVersion': { N: '1' },
        },
      }),
    ]);
    // Handed over before the next turn's Drain: its pending messages wait for the new execution.
    expect(run.drains.map(({ input }) => input.turn)).toEqual([1, 2]);
    expect(run.tasks.at(-1)).toBe(S.recordHandover);
  });

  it('resumes in the fresh execution without acknowledging again, with the session and what it was told', async () => {
    const first = await runBugInvestigation({
      agent: [turn('post_findings'), turn('continue', { sessionId: 'session-3' })],
      drains: [{ messages: [report] }, { messages: [developerReply] }],
      waits: ['message'],
      config,
    });
    const input = first.handovers[0]?.parameters.Input as Record<string, unknown>;

    const second = await runBugInvestigation({
      input,
      agent: [turn('continue', { sessionId: 'session-3' }), turn('resolved', { sessionId: 'session-3' })],
      drains: [{ messages: [developerReply] }],
      config,
    });

    expect(second.posts.map((post) => post.state)).not.toContain(S.acknowledgeReport);
    expect(second.agentInputs.map((i) => [i.turn, i.mode, i.state, i.sessionId])).toEqual([
      [3, 'continuation', 'awaiting_dev', 'session-3'],
      [4, 'continuation', 'awaiting_dev', 'session-3'],
    ]);
    // The summary thread came along: later findings go in it, not in a new thread.
    const summaryTs = first.posts.find((post) => post.state === S.postFindings)?.output.ts;
    expect(second.posts.find((post) => post.state === S.postUpdatedFindings)?.input.threadTs).toBe(summaryTs);
    // Its own threshold counts from the turn it started at: no handover at turn 3.
    expect(second.handovers).toEqual([]);
  });

  it('goes on in the same execution when the fresh one cannot be started', async () => {
    const run = await runBugInvestigation({
      agent: [turn('continue'), turn('continue'), turn('resolved')],
      drains: [{ messages: [report] }],
      failing: { [S.handOver]: error('StepFunctions.InvalidName') },
      config,
    });

    expect(run.failure).toBeUndefined();
    expect(run.agentInputs.map((input) => input.turn)).toEqual([1, 2, 3]);
    expect(run.output.handoverFailure).toMatchObject({ Error: 'StepFunctions.InvalidName' });
  });

  it('ends when the fresh execution already exists (an earlier attempt started it)', async () => {
    const run = await runBugInvestigation({
      agent: [turn('continue'), turn('continue')],
      drains: [{ messages: [report] }],
      failing: { [S.handOver]: error('StepFunctions.ExecutionAlreadyExistsException') },
      config,
    });

    expect(run.failure).toBeUndefined();
    expect(run.agentInputs).toHaveLength(2);
    expect(run.recordedHandovers).toEqual([]);
  });
});
