import { describe, expect, it } from 'vitest';
import type { SlackPostOutput } from '../../lambdas/kernel/slack-post-output.ts';
import {
  DrainInput,
  type DrainOutput,
  type ExecutionInput,
  RegisterWaitInput,
  SlackPostInput,
  type WakeOutput,
} from '../../lambdas/kernel/tasks.ts';
import { validatedMachine } from '../support/local-machine.ts';
import { definitions, PROBE_CHANNEL, probeTemplate } from './template.ts';

/**
 * The probe definition from the template, run with the task states replaced by fakes that
 * parse their input with the kernel's task schemas: proves the payloads the definition
 * builds are the ones the handlers accept, and that the graph routes as the sandbox expects.
 */
const probe = definitions(probeTemplate()).get('kernel_probe');

const start = {
  conversationId: 'kernel-probe-C_PROBE-1700000000-000100',
  workflow: 'kernel_probe',
  channel: PROBE_CHANNEL,
  threadTs: '1700000000.000100',
  ownerId: 'U0REPORTER',
  turn: 0,
} satisfies ExecutionInput;

function runProbe(
  options: { closeOnDrain: number; waitTimesOut?: boolean; drainFails?: boolean },
  fieldUpdates: unknown[] = [],
) {
  const posts: SlackPostInput[] = [];
  const waits: RegisterWaitInput[] = [];
  let drains = 0;
  const handlers = {
    'Mark investigating': updateFields,
    'Mark resolved': updateFields,
    'Mark failed': updateFields,
    'Drain messages': (input: unknown) => {
      const { Payload } = input as { Payload: unknown };
      const { turn } = DrainInput.parse(Payload);
      if (options.drainFails)
        throw Object.assign(new Error('table is gone'), { name: 'ResourceNotFoundException' });
      drains += 1;
      const output: DrainOutput = {
        turn,
        closeRequested: drains === options.closeOnDrain,
        count: 1,
        messages: [],
      };
      return { StatusCode: 200, Payload: output };
    },
    'Wait for reporter': (input: unknown) => {
      waits.push(RegisterWaitInput.parse((input as { Payload: unknown }).Payload));
      if (options.waitTimesOut) throw Object.assign(new Error('wait timed out'), { name: 'States.Timeout' });
      const wake: WakeOutput = { woken: 'message' };
      return wake;
    },
    Reply: post,
    'Reply timed out': post,
  };
  function updateFields(input: unknown) {
    fieldUpdates.push(input);
    return {};
  }
  function post(input: unknown) {
    const parsed = SlackPostInput.parse((input as { Payload: unknown }).Payload);
    posts.push(parsed);
    const output: SlackPostOutput = {
      channel: parsed.channel,
      ts: `${posts.length}.0`,
      threadTs: start.threadTs ?? '',
    };
    return { StatusCode: 200, Payload: output };
  }
  if (probe === undefined) throw new Error('kernel_probe is not in the template');
  const machine = validatedMachine(probe);
  const run = machine.run(start, {
    overrides: { taskResourceLocalHandlers: handlers as never, waitTimeOverrides: { 'Finish turn': 0 } },
    context: { Task: { Token: 'task-token-1' } } as never,
  });
  return run.result.then((output) => ({ output, posts, waits, fieldUpdates }));
}

describe('the kernel_probe definition against the kernel task contracts', () => {
  it('replies each turn and waits for the reporter until a close is requested', async () => {
    const { posts, waits, fieldUpdates } = await runProbe({ closeOnDrain: 2 });

    expect(posts.map((p) => p.text)).toEqual([
      'probe turn 1 got 1 message(s)',
      'probe turn 2 got 1 message(s)',
    ]);
    expect(posts.map((p) => p.idempotencyKey)).toEqual([
      `${start.conversationId}:Reply:1`,
      `${start.conversationId}:Reply:2`,
    ]);
    expect(waits).toEqual([
      {
        conversationId: start.conversationId,
        taskToken: 'task-token-1',
        accepts: ['reporter'],
        phase: 'awaiting_reporter',
      },
    ]);
    expect(fieldUpdates).toHaveLength(2);
  });

  it('posts the timeout reply and resolves when the reporter never answers', async () => {
    const { output, posts } = await runProbe({ closeOnDrain: 0, waitTimesOut: true });

    expect(posts.map((p) => p.text)).toEqual(['probe turn 1 got 1 message(s)', 'probe timed out']);
    expect(output).toMatchObject({
      conversationId: start.conversationId,
      turn: 1,
      timedOut: { Error: 'States.Timeout' },
    });
  });

  it('marks the conversation failed and fails the execution with the error when a task fails', async () => {
    const fieldUpdates: unknown[] = [];

    // The local runtime reports the Fail state's cause: the failed task's error message.
    await expect(runProbe({ closeOnDrain: 0, drainFails: true }, fieldUpdates)).rejects.toThrow(
      /table is gone/,
    );
    expect(fieldUpdates.at(-1)).toMatchObject({
      UpdateExpression: `SET #status = :status, #schemaVersion = if_not_exists(#schemaVersion, :schemaVersion)`,
      ExpressionAttributeValues: { ':status': { S: 'failed' } },
    });
  });

  it('keeps the state small: ids and facts, not the Lambda response envelope', async () => {
    const { output } = await runProbe({ closeOnDrain: 1 });

    expect(Object.keys(output as object).sort()).toEqual([...Object.keys(start), 'drained', 'report'].sort());
  });
});
