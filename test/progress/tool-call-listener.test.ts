import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import type { ModelClient } from '../../lambdas/agents/ports.ts';
import { SUBMIT_TOOL } from '../../lambdas/agents/profile.ts';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import type { ToolCallListener } from '../../lambdas/agents/tool-calls.ts';
import { BUG_INVESTIGATION_PROFILES } from '../../lambdas/workflows/bug-investigation/profiles/index.ts';

/** A model replying with `replies` in order, each a list of tool calls. */
function model(replies: { id: string; name: string; input: unknown }[][]): ModelClient {
  let index = 0;
  return {
    async createMessage() {
      const content = (replies[index++] ?? []).map((use) => ({ type: 'tool_use', ...use }));
      return {
        id: `msg_${index}`,
        type: 'message',
        role: 'assistant',
        model: 'test',
        content,
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      } as unknown as Message;
    },
  };
}

const submission = {
  id: 'toolu_submit',
  name: SUBMIT_TOOL,
  input: {
    action: 'ask_reporter',
    summary: 'Too vague.',
    confidence: 10,
    severity: 'low',
    clarification_question: 'Which page?',
  },
};

function run(replies: Parameters<typeof model>[0], toolCalls: ToolCallListener) {
  return runAgentTurn(
    {
      conversationId: 'c-1',
      profile: 'bug_investigator',
      turn: 1,
      mode: 'initial',
      state: 'investigating',
      messages: [],
      notes: [],
    },
    {
      profiles: BUG_INVESTIGATION_PROFILES,
      model: model(replies),
      modelId: 'test',
      tools: {
        invoke: async (tool) => {
          if (tool === 'get_bug_conversations') return 'the history';
          throw new Error('no such service');
        },
      },
      transcripts: { load: async () => [], save: async () => {} },
      ledger: async () => {},
      clock: { now: () => new Date() },
      budget: { deadlineMs: Date.now() + 60_000, maxToolCalls: 10 },
      toolCalls,
    },
  );
}

describe('the tool-call listener of a turn', () => {
  it('hears each tool call start and end, with its outcome, and not the submission', async () => {
    const heard: string[] = [];
    const output = await run(
      [
        [
          { id: 'toolu_1', name: 'get_bug_conversations', input: { bug_id: 'c-1' } },
          { id: 'toolu_2', name: 'lookup_orders', input: {} },
        ],
        [submission],
      ],
      {
        toolStarted: (use) => heard.push(`start ${use.id}`),
        toolFinished: (use, result) =>
          heard.push(`end ${use.id} ${result.failed ? 'failed' : 'ok'} ${result.output}`),
      },
    );
    expect(output.action).toBe('ask_reporter');
    expect(heard).toEqual([
      'start toolu_1',
      'end toolu_1 ok the history',
      'start toolu_2',
      'end toolu_2 failed Unknown tool "lookup_orders". The tools you have are: get_bug_conversations, submit_result.',
    ]);
  });

  it('finishes the turn when the listener throws', async () => {
    const output = await run([[{ id: 'toolu_1', name: 'get_bug_conversations', input: {} }], [submission]], {
      toolStarted: () => {
        throw new Error('progress broke');
      },
      toolFinished: () => {
        throw new Error('progress broke again');
      },
    });
    expect(output.action).toBe('ask_reporter');
  });
});
