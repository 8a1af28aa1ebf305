import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import {
  lastToolResults,
  lastUserText,
  type RecordedModelRequest,
  reply,
  SUBMIT_NOW_NOTE,
  submit,
  systemText,
  text,
  toolResultText,
  toolUse,
  withUsage,
} from '../support/scripted-model.ts';
import {
  CONVERSATION,
  drained,
  fakeTools,
  heldReply,
  ledgerRecorder,
  MemoryTranscripts,
  turnDeps,
  turnInput,
  useScriptedModel,
  validFindings,
} from './support.ts';

/** The most characters of one tool output the model is shown (stated here, not imported: the value is what this test checks). */
const TOOL_OUTPUT_LIMIT = 20_000;

const scripted = useScriptedModel();

const history = (bugId = CONVERSATION) => toolUse('get_bug_conversations', { bug_id: bugId });
const onlyResult = (request: RecordedModelRequest): ToolResultBlockParam => {
  const results = lastToolResults(request.body);
  expect(results).toHaveLength(1);
  return results[0] as ToolResultBlockParam;
};

describe('the tool loop', () => {
  it('runs the tool the model asks for, sends back its result, and ends with the valid submission', async () => {
    const server = await scripted([
      history(),
      (request) => {
        expect(toolResultText(onlyResult(request))).toBe(
          '[09:14:03] REPORTER <@U_REPORTER> (message): Checkout fails',
        );
        return submit(validFindings);
      },
    ]);
    const tools = fakeTools({
      get_bug_conversations: () => '[09:14:03] REPORTER <@U_REPORTER> (message): Checkout fails',
    });

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { tools: tools.invoker }));

    expect(output).toEqual({
      action: 'post_findings',
      sessionId: 'session-1',
      summary: validFindings.summary,
      rootCause: validFindings.root_cause,
      confidence: 80,
      severity: 'high',
    });
    expect(tools.calls).toEqual([
      { tool: 'get_bug_conversations', args: { bug_id: CONVERSATION }, conversationId: CONVERSATION },
    ]);
  });

  it("hands every tool call the turn's tool context, which the state machine set", async () => {
    const server = await scripted([history(), history(), submit(validFindings)]);
    const tools = fakeTools({ get_bug_conversations: () => 'nothing yet' });
    const toolContext = { workBranch: 'agents/bug-0123abcd4567', scope: 'hypothesis-1' };

    await runAgentTurn(turnInput({ toolContext }), turnDeps(server.baseUrl, { tools: tools.invoker }));

    expect(tools.calls.map((call) => call.toolContext)).toEqual([toolContext, toolContext]);
  });

  it('sends the system prompt, the tools with submit_result last, and marks the stable prefix for caching', async () => {
    const server = await scripted([submit(validFindings)]);

    await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    const body = server.requests[0]?.body;
    expect(systemText(body ?? ({} as never))).toContain('At the end of each turn, set the "action" field');
    expect(body?.tools?.map((tool) => ('name' in tool ? tool.name : tool.type))).toEqual([
      'get_bug_conversations',
      'submit_result',
    ]);
    const submitTool = body?.tools?.[1] as {
      input_schema: { properties: Record<string, unknown> };
      cache_control?: unknown;
    };
    expect(Object.keys(submitTool.input_schema.properties)).toEqual(
      expect.arrayContaining([
        'action',
        'summary',
        'root_cause',
        'confidence',
        'severity',
        'clarification_question',
        'fix',
      ]),
    );
    expect(submitTool.cache_control).toEqual({ type: 'ephemeral' });
    expect(body?.system).toEqual([expect.objectContaining({ cache_control: { type: 'ephemeral' } })]);
    expect(body?.tool_choice).toEqual({ type: 'any' });
    expect(lastUserText(body ?? ({} as never))).toContain(
      '"from":"U_REPORTER","role":"reporter","verified":true,"text":"Checkout fails with HTTP 500',
    );
  });

  it('answers an invalid submission with the validation errors and accepts the corrected one', async () => {
    const server = await scripted([
      submit({ action: 'ask_reporter', summary: 'Need the browser', confidence: 20, severity: 'low' }),
      (request) => {
        const result = onlyResult(request);
        expect(result.is_error).toBe(true);
        expect(toolResultText(result)).toContain(
          'clarification_question is required when action is ask_reporter',
        );
        return submit({
          action: 'ask_reporter',
          summary: 'Need the browser',
          confidence: 20,
          severity: 'low',
          clarification_question: 'Which browser do you use?',
        });
      },
    ]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    expect(output.action).toBe('ask_reporter');
    expect(output.clarificationQuestion).toBe('Which browser do you use?');
  });

  it('escalates with the validation error when the submission stays invalid after two retries', async () => {
    const invalid = { action: 'post_findings', summary: 'x', confidence: 250, severity: 'low' };
    const server = await scripted([submit(invalid), submit(invalid), submit(invalid)]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    expect(output).toMatchObject({ action: 'escalate', confidence: 0, severity: 'medium' });
    expect(output.error).toContain("the model's result was invalid 3 times");
    expect(output.error).toContain('confidence');
    expect(server.requests).toHaveLength(3);
  });

  it('answers an unknown tool with an error result and goes on', async () => {
    const server = await scripted([
      toolUse('read_production_database', { query: 'select *' }),
      (request) => {
        const result = onlyResult(request);
        expect(result.is_error).toBe(true);
        expect(toolResultText(result)).toContain('Unknown tool "read_production_database"');
        return submit(validFindings);
      },
    ]);
    const tools = fakeTools({});

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { tools: tools.invoker }));

    expect(output.action).toBe('post_findings');
    expect(tools.calls).toEqual([]);
  });

  it('turns a failing tool into an error result the model can read', async () => {
    const server = await scripted([
      history(),
      (request) => {
        expect(toolResultText(onlyResult(request))).toContain(
          'get_bug_conversations failed: the table is throttled',
        );
        return submit(validFindings);
      },
    ]);
    const tools = fakeTools({
      get_bug_conversations: () => {
        throw new Error('the table is throttled');
      },
    });

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { tools: tools.invoker }));

    expect(output.action).toBe('post_findings');
  });

  it('caps a tool output before it enters the transcript', async () => {
    const server = await scripted([
      history(),
      (request) => {
        const content = toolResultText(onlyResult(request));
        expect(content.startsWith('x'.repeat(TOOL_OUTPUT_LIMIT))).toBe(true);
        expect(content).toContain(
          `[output truncated: the first ${TOOL_OUTPUT_LIMIT} of 50000 characters are shown]`,
        );
        return submit(validFindings);
      },
    ]);
    const tools = fakeTools({ get_bug_conversations: () => 'x'.repeat(50_000) });

    await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { tools: tools.invoker }));
  });

  it('ends the turn at a valid submission without running the other calls of the same reply', async () => {
    const server = await scripted([reply(history(), submit(validFindings))]);
    const tools = fakeTools({ get_bug_conversations: () => 'history' });
    const transcripts = new MemoryTranscripts();

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, { tools: tools.invoker, transcripts }),
    );

    expect(output.action).toBe('post_findings');
    expect(tools.calls).toEqual([]);
    // Every tool call of the transcript has its result, or the next turn's request would be refused.
    const closing = transcripts.saved('session-1', 1)?.at(-1);
    expect(closing?.role).toBe('user');
    expect(
      ((closing?.content ?? []) as ToolResultBlockParam[]).map((block) => block.is_error ?? false),
    ).toEqual([true, false]);
  });

  it('reminds a model that answered without calling a tool, and escalates when it does so again', async () => {
    const server = await scripted([text('I think it is the cache.'), text('Still the cache.')]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    expect(output.action).toBe('escalate');
    expect(output.error).toBe('the model answered without calling a tool (stop_reason end_turn)');
    expect(output.summary).toContain('Still the cache.');
    expect(lastUserText(server.requests[1]?.body ?? ({} as never))).toBe(SUBMIT_NOW_NOTE);
  });

  it('accepts a submission that follows the reminder', async () => {
    const server = await scripted([text('I think it is the cache.'), submit(validFindings)]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    expect(output.action).toBe('post_findings');
  });
});

describe('budgets', () => {
  it('returns continue and saves the transcript when the tool-call cap is reached', async () => {
    const server = await scripted([history(), history()]);
    const tools = fakeTools({ get_bug_conversations: () => 'history' });
    const transcripts = new MemoryTranscripts();

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        tools: tools.invoker,
        transcripts,
        budget: { deadlineMs: Date.now() + 60_000, maxToolCalls: 1 },
      }),
    );

    expect(output).toMatchObject({ action: 'continue', sessionId: 'session-1', confidence: 0 });
    expect(tools.calls).toHaveLength(1);
    const saved = transcripts.saved('session-1', 1) ?? [];
    expect(saved.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const last = saved.at(-1)?.content as { type: string; text?: string; is_error?: boolean }[];
    expect(last[0]).toMatchObject({ type: 'tool_result', is_error: true });
    // The note the model reads in the saved transcript, stated here: the test checks its words.
    expect(last[1]?.text).toContain(
      '[runtime] This turn ran out of its budget before you submitted a result',
    );
  });

  it('returns continue when the time budget runs out', async () => {
    const server = await scripted([history()]);
    let now = Date.parse('2015-11-21T12:00:00Z');
    // The tool call takes the rest of the turn's time.
    const tools = fakeTools({
      get_bug_conversations: () => {
        now += 300_000;
        return 'history';
      },
    });

    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, {
        tools: tools.invoker,
        clock: { now: () => new Date(now) },
        budget: { deadlineMs: now + 240_000, maxToolCalls: 10 },
      }),
    );

    expect(output.action).toBe('continue');
    expect(server.requests).toHaveLength(1);
  });
  it('returns continue when a model call outlasts the time budget', async () => {
    const hanging = heldReply(submit(validFindings));
    const server = await scripted([hanging.step]);
    const transcripts = new MemoryTranscripts();

    // The deadline leaves room for the prompt's redaction on a busy machine, so the call starts.
    const output = await runAgentTurn(
      turnInput(),
      turnDeps(server.baseUrl, { transcripts, budget: { deadlineMs: Date.now() + 1_500, maxToolCalls: 10 } }),
    ).finally(hanging.release);

    expect(output.action).toBe('continue');
    expect(JSON.stringify(transcripts.saved('session-1', 1))).toContain(
      'time budget ran out during a model call',
    );
  });
});

describe('sessions', () => {
  it('resumes the session on the next turn: the model receives the earlier turns and the new messages', async () => {
    const question = {
      action: 'ask_reporter',
      summary: 'Need the browser',
      confidence: 20,
      severity: 'low',
      clarification_question: 'Which browser?',
    };
    const server = await scripted([
      history(),
      submit(question),
      (request) => {
        const messages = request.body.messages;
        // Turn 1 (prompt, history call, its result, the submission), then turn 2's prompt merged
        // into the user message that closes turn 1.
        expect(messages.map((message) => message.role)).toEqual([
          'user',
          'assistant',
          'user',
          'assistant',
          'user',
        ]);
        expect(JSON.stringify(messages[0])).toContain('A new bug report');
        const prompt = lastUserText(request.body);
        expect(prompt).toContain(
          '"from":"U_DEV1","role":"developer","verified":true,"text":"It started after the 2.3 deploy',
        );
        expect(prompt).toContain(
          '"from":"U_DEV2","role":"developer","verified":true,"text":"Only for EU customers',
        );
        expect(prompt).toContain(`Start by calling get_bug_conversations("${CONVERSATION}")`);
        // The resumed transcript's last block is a cache breakpoint.
        const closing = messages.at(-1)?.content as { type: string; cache_control?: unknown }[];
        expect(closing[0]).toMatchObject({ type: 'tool_result', cache_control: { type: 'ephemeral' } });
        return submit(validFindings);
      },
    ]);
    const transcripts = new MemoryTranscripts();
    const tools = fakeTools({ get_bug_conversations: () => 'history' });
    const deps = turnDeps(server.baseUrl, { transcripts, tools: tools.invoker });

    const first = await runAgentTurn(turnInput(), deps);
    const second = await runAgentTurn(
      turnInput({
        turn: 2,
        mode: 'continuation',
        state: 'awaiting_dev',
        sessionId: first.sessionId,
        messages: [
          drained('developer', 'U_DEV1', 'It started after the 2.3 deploy', '1732190100.000100'),
          drained('developer', 'U_DEV2', 'Only for EU customers', '1732190101.000100'),
        ],
      }),
      { ...deps, newSessionId: () => 'never-used' },
    );

    expect(first.action).toBe('ask_reporter');
    expect(second).toMatchObject({ action: 'post_findings', sessionId: 'session-1' });
  });

  it('does not show a retried turn its own earlier attempt', async () => {
    const server = await scripted([
      (request) => {
        expect(request.body.messages).toHaveLength(1);
        return submit(validFindings);
      },
    ]);
    const transcripts = new MemoryTranscripts();
    await transcripts.save(CONVERSATION, 'session-1', 3, [
      { role: 'user', content: 'an earlier attempt of turn 3' },
    ]);

    await runAgentTurn(
      turnInput({ turn: 3, mode: 'continuation', sessionId: 'session-1' }),
      turnDeps(server.baseUrl, { transcripts }),
    );

    expect(JSON.stringify(transcripts.saved('session-1', 3))).not.toContain('an earlier attempt');
  });
});

describe('token usage', () => {
  it('adds the usage of every model call to the ledger', async () => {
    const server = await scripted([
      withUsage(history(), { input_tokens: 1_000, output_tokens: 50, cache_creation_input_tokens: 200 }),
      withUsage(submit(validFindings), {
        input_tokens: 30,
        output_tokens: 120,
        cache_read_input_tokens: 1_200,
      }),
    ]);
    const ledger = ledgerRecorder();
    const tools = fakeTools({ get_bug_conversations: () => 'history' });

    await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { tools: tools.invoker, ledger: ledger.write }));

    expect(ledger.deltas).toHaveLength(2);
    expect(ledger.total('inputTokens')).toBe(1_230);
    expect(ledger.total('outputTokens')).toBe(170);
    expect(ledger.total('cacheReadTokens')).toBe(1_200);
  });
});
