import { describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { submit, toolUse } from '../support/scripted-model.ts';
import { CONVERSATION, fakeTools, turnDeps, turnInput, useScriptedModel, validFindings } from './support.ts';

const scripted = useScriptedModel();

describe('a turn stopped by people', () => {
  it('ends before its next model call, without a result', async () => {
    let stopped = false;
    const server = await scripted([toolUse('get_bug_conversations', { bug_id: CONVERSATION })]);
    const tools = fakeTools({
      get_bug_conversations: () => {
        stopped = true;
        return 'history';
      },
    });

    const output = await runAgentTurn(turnInput(), {
      ...turnDeps(server.baseUrl, { tools: tools.invoker }),
      stopRequested: async () => stopped,
    });

    expect(output.action).toBe('continue');
    expect(server.requests).toHaveLength(1);
  });

  it('drops the answer the model gave while it was stopped', async () => {
    let calls = 0;
    const server = await scripted([submit(validFindings)]);

    const output = await runAgentTurn(turnInput(), {
      ...turnDeps(server.baseUrl),
      // Not stopped before the call; stopped by the time the answer is in.
      stopRequested: async () => ++calls > 1,
    });

    expect(output.action).toBe('continue');
    expect(JSON.stringify(output)).not.toContain(validFindings.summary);
  });

  it('runs as before when nobody stops it', async () => {
    const server = await scripted([submit(validFindings)]);
    const output = await runAgentTurn(turnInput(), {
      ...turnDeps(server.baseUrl),
      stopRequested: async () => false,
    });
    expect(output.action).toBe('post_findings');
  });
});
