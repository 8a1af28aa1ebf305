import { describe, expect, it } from 'vitest';
import type { ToolInvoker } from '../../lambdas/agents/contract.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import type { StoredMessage } from '../../lambdas/kernel/model.ts';
import { readConversationHistory } from '../../lambdas/tools/conversation-history.ts';
import { isVagueReport } from '../../statemachines/bug-investigation/demo.ts';
import { DEMO_LABEL } from '../../statemachines/demo/text.ts';
import { CONVERSATION, drained, MemoryTranscripts, turnDeps, turnInput, useDemoModel } from './support.ts';

const demoModel = useDemoModel();

/** The real history tool over an in-memory conversation. */
function historyOf(messages: StoredMessage[]) {
  const calls: unknown[] = [];
  const tools: ToolInvoker = {
    async invoke(_tool, args, context) {
      calls.push(args);
      const result = await readConversationHistory(args, context, {
        store: { listMessages: async () => messages },
      });
      return result.ok ? result.output : `Tool error: ${result.error}`;
    },
  };
  return { tools, calls };
}

function stored(
  senderType: StoredMessage['senderType'],
  senderId: string,
  text: string,
  ts: string,
): StoredMessage {
  return {
    conversationId: CONVERSATION,
    ts,
    channel: 'C_BUGS',
    senderType,
    senderId,
    messageType: 'message',
    text,
    receivedAt: '2015-11-21T12:00:00Z',
  };
}

describe('the offline demo model', () => {
  it('reads the history, then asks the reporter a clarifying question about a vague report', async () => {
    const report = stored('reporter', 'U_REP', 'something is broken', '1732190000.000100');
    const history = historyOf([report]);

    const output = await runAgentTurn(
      turnInput({ messages: [drained('reporter', 'U_REP', report.text)] }),
      turnDeps(demoModel(), { tools: history.tools }),
    );

    expect(history.calls).toEqual([{ bug_id: CONVERSATION }]);
    expect(output.action).toBe('ask_reporter');
    expect(output.clarificationQuestion?.startsWith(DEMO_LABEL)).toBe(true);
    expect(output.summary.startsWith(DEMO_LABEL)).toBe(true);
  });

  it('investigates a vague report its reporter already explained in a message the same turn holds', async () => {
    // Both came in before the first turn began (a burst, or a busy machine): asking again would
    // wait for an answer the reporter already gave.
    const report = stored('reporter', 'U_REP', 'something is broken', '1732190000.000100');
    const answer = stored(
      'reporter',
      'U_REP',
      'On Safari 17 checkout shows a 500 after I click Pay',
      '1732190001.000100',
    );
    const history = historyOf([report, answer]);

    const output = await runAgentTurn(
      turnInput({
        messages: [
          drained('reporter', 'U_REP', report.text, report.ts),
          drained('reporter', 'U_REP', answer.text, answer.ts),
        ],
      }),
      turnDeps(demoModel(), { tools: history.tools }),
    );

    expect(output.action).toBe('post_findings');
    expect(output.summary).toContain('Read 2 message(s)');
  });

  it('posts labelled findings built from the messages it saw for a detailed report', async () => {
    const text =
      'Checkout fails with HTTP 500 after I click Pay, on version 2.3.1 in Firefox, every time since Monday';
    const history = historyOf([stored('reporter', 'U_REP', text, '1732190000.000100')]);

    const output = await runAgentTurn(
      turnInput({ messages: [drained('reporter', 'U_REP', text)] }),
      turnDeps(demoModel(), { tools: history.tools }),
    );

    expect(output).toMatchObject({ action: 'post_findings', confidence: 60, severity: 'medium' });
    expect(output.summary.startsWith(DEMO_LABEL)).toBe(true);
    expect(output.summary).toContain('Read 1 message(s)');
    expect(output.summary).toContain(text);
    expect(output.rootCause?.startsWith(DEMO_LABEL)).toBe(true);
  });

  it("posts findings on the turn after the reporter's answer, without asking again", async () => {
    const transcripts = new MemoryTranscripts();
    const messages = [stored('reporter', 'U_REP', 'it crashed', '1732190000.000100')];
    const history = historyOf(messages);
    const deps = turnDeps(demoModel(), { tools: history.tools, transcripts });
    const first = await runAgentTurn(
      turnInput({ messages: [drained('reporter', 'U_REP', 'it crashed')] }),
      deps,
    );
    messages.push(stored('reporter', 'U_REP', 'Android 14, app 2.3.1', '1732190100.000100'));

    const second = await runAgentTurn(
      turnInput({
        turn: 2,
        mode: 'continuation',
        state: 'awaiting_reporter',
        sessionId: first.sessionId,
        messages: [drained('reporter', 'U_REP', 'Android 14, app 2.3.1', '1732190100.000100')],
      }),
      deps,
    );

    expect(first.action).toBe('ask_reporter');
    expect(second.action).toBe('post_findings');
    expect(second.summary).toContain('The reporter added: "Android 14, app 2.3.1"');
    expect(second.summary).toContain('Read 2 message(s)');
  });

  it('resolves with a fix that changed no code when a developer asks for a PR', async () => {
    const history = historyOf([
      stored('developer', 'U_DEV', 'please open a PR for this', '1732190300.000100'),
    ]);

    const output = await runAgentTurn(
      turnInput({
        turn: 3,
        mode: 'continuation',
        state: 'awaiting_dev',
        sessionId: 'session-x',
        messages: [drained('developer', 'U_DEV', 'please open a PR for this')],
      }),
      turnDeps(demoModel(), { tools: history.tools }),
    );

    expect(output.action).toBe('resolved');
    expect(output.fix?.description).toContain('No real code was changed');
    expect(output.fix?.description.startsWith(DEMO_LABEL)).toBe(true);
  });

  it('does not take a reporter asking for a PR as a fix request', async () => {
    const history = historyOf([]);

    const output = await runAgentTurn(
      turnInput({
        turn: 2,
        mode: 'continuation',
        state: 'awaiting_reporter',
        sessionId: 'session-y',
        messages: [drained('reporter', 'U_REP', 'just open a PR and fix it')],
      }),
      turnDeps(demoModel(), { tools: history.tools }),
    );

    expect(output.action).toBe('post_findings');
  });

  it('answers other paths with the API error format', async () => {
    const response = await fetch(`${demoModel()}/v1/models`);

    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });
});

describe('vague reports', () => {
  it.each([
    ['something is broken', true],
    ['The page is slow and ugly and I do not like it at all today', true],
    ['Checkout fails with HTTP 500 after I click Pay, on version 2.3.1 in Firefox', false],
  ])('%j is vague: %s', (text, vague) => {
    expect(isVagueReport(text)).toBe(vague);
  });
});
