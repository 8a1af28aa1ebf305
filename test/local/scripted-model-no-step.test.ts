import Anthropic from '@anthropic-ai/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import {
  noStepLeft,
  type RecordedModelRequest,
  startScriptedModel,
  submit,
  text,
} from '../support/scripted-model.ts';

/**
 * When a conversation's script runs out, the scenario harnesses say which request found it empty
 * in words that tell a resent request (the same messages again, the SDK's retry count) from a
 * new one, and which agent each earlier request came from: on a loaded machine that is the
 * difference between a retried turn and a workflow that went round once more.
 */

const served: RecordedModelRequest[] = [];
const steps = [submit({ verdict: 'ok' }), text('and more')];
const model = await startScriptedModel({
  steps: async (request) => {
    const step = steps.shift();
    if (!step) throw noStepLeft('conversation-1', request, served);
    served.push(request);
    return step;
  },
});
afterAll(() => model.close());

const client = new Anthropic({ apiKey: 'test-key', baseURL: model.baseUrl, maxRetries: 0 });
const ask = (content: string, tools: Anthropic.Tool[] = []) =>
  client.messages.create({
    model: 'claude-test',
    max_tokens: 100,
    messages: [{ role: 'user', content }],
    ...(tools.length > 0 && { tools }),
  });
const SUBMIT: Anthropic.Tool = { name: 'submit_review', input_schema: { type: 'object' } };

describe('a script with no step left', () => {
  it('names the agent, the retry count and the earlier request whose messages it repeats', async () => {
    await ask('Review the change.', [SUBMIT]);
    await ask('Anything else?');
    await expect(ask('Review the change.', [SUBMIT])).rejects.toThrow();
    expect(model.failures).toEqual([
      'scripted model: step for request 3 threw: the script of conversation-1 has no step left for ' +
        'request 2 (submit_review, retry 0, the messages of request 0 again; served before: 0 (submit_review), 1 (no submit tool))',
    ]);
  });

  it('says so when the messages are new', async () => {
    await expect(ask('Something new.')).rejects.toThrow();
    expect(model.failures.at(-1)).toContain(
      'request 3 (no submit tool, retry 0, 1 messages, new; served before: 0 (submit_review), 1 (no submit tool))',
    );
  });
});
