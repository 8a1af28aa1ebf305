import { describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../lambdas/agents/run-agent-turn.ts';
import { httpError, malformed, submit } from '../support/scripted-model.ts';
import { MemoryTranscripts, turnDeps, turnInput, useScriptedModel, validFindings } from './support.ts';

const scripted = useScriptedModel({ strict: false });

describe('model API failures', () => {
  it('retries a 500 and a 529, then escalates on the malformed answer, with the error recorded', async () => {
    const server = await scripted([httpError(500), httpError(529), malformed()]);
    const transcripts = new MemoryTranscripts();

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { maxRetries: 2, transcripts }));

    // The SDK retried twice: the server saw all three attempts of the one call.
    expect(server.requests.map((request) => request.answered)).toEqual(['error 500', 'error 529', 'raw 200']);
    expect(output).toMatchObject({ action: 'escalate', confidence: 0, severity: 'medium' });
    expect(output.error).toBe('MalformedModelReplyError: the model API answered with invalid JSON');
    // The model answered: a bad answer is the agent's failure, which developers can take over.
    expect(output.modelError).toBeUndefined();
    expect(output.summary).toContain('The automated investigation stopped');
    // The turn's prompt is kept, so a later turn of the session still has it.
    expect(transcripts.saved('session-1', 1)).toHaveLength(1);
    expect(server.failures).toEqual([]);
  });

  it('ends the turn as ModelUnavailableError, for the state machine to retry, once the retries are used up', async () => {
    const server = await scripted([httpError(500), httpError(529), httpError(529, 'Overloaded')]);
    const transcripts = new MemoryTranscripts();

    const run = runAgentTurn(turnInput(), turnDeps(server.baseUrl, { maxRetries: 2, transcripts }));

    const error = await run.catch((failure: unknown) => failure);
    // One name and the API's answer, as the execution's error reads it.
    expect(String(error)).toBe(
      'ModelUnavailableError: the model API answered HTTP 529 overloaded_error: Overloaded',
    );
    expect(server.requests).toHaveLength(3);
    // Nothing saved: the retried turn starts from the turns before it.
    expect(transcripts.saved('session-1', 1)).toBeUndefined();
  });

  it('does not retry a request the API refused as invalid', async () => {
    const server = await scripted([httpError(400, 'messages: text content blocks must be non-empty')]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { maxRetries: 2 }));

    expect(server.requests).toHaveLength(1);
    expect(output.error).toContain(
      'HTTP 400 invalid_request_error: messages: text content blocks must be non-empty',
    );
  });

  it("ends the turn at once when the key is rejected, marked as the model's refusal", async () => {
    const server = await scripted([httpError(401, 'invalid x-api-key')]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { maxRetries: 2 }));

    expect(server.requests).toHaveLength(1);
    // The API's answer alone: the workflow names it ModelCallError when it fails with it.
    const refusal = 'the model API answered HTTP 401 authentication_error: invalid x-api-key';
    expect(output).toMatchObject({ action: 'escalate', error: refusal, modelError: refusal });
  });

  it('escalates when the answer is JSON but not a message', async () => {
    const server = await scripted([malformed('{"hello":"world"}')]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl));

    expect(output.error).toBe(
      'MalformedModelReplyError: the model API answered with something that is not a message',
    );
  });

  it('recovers when a retry succeeds', async () => {
    const server = await scripted([httpError(529), submit(validFindings)]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { maxRetries: 2 }));

    expect(output.action).toBe('post_findings');
    expect(server.requests).toHaveLength(2);
  });
});

describe('the scripted model', () => {
  it('fails loudly, without being retried, when its script runs out', async () => {
    const server = await scripted([]);

    const output = await runAgentTurn(turnInput(), turnDeps(server.baseUrl, { maxRetries: 2 }));

    expect(server.requests).toHaveLength(1);
    expect(server.failures).toEqual([
      'scripted model: the script ran out: request 1 has no step (the script has 0)',
    ]);
    expect(output.error).toContain('the script ran out');
  });
});
