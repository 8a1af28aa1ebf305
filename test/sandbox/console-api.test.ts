import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import type { Sandbox } from '../../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../../statemachines/probe.ts';
import { eventually as poll } from '../support/eventually.ts';
import { workerSandbox } from '../support/sandbox.ts';

/** The sandbox's JSON surface the web console reads: conversations, executions, buttons, change events. */

const PROBE = 'C_PROBE';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await workerSandbox({
    timeScale: 0.001,
    modules: [KERNEL_PROBE_MODULE],
    config: { channels: { probe: PROBE } },
    logLevel: 'SILENT',
  });
});
afterAll(async () => sandbox?.stop());

async function get<T>(path: string): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`);
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return (await response.json()) as T;
}
const post = async (path: string, body: unknown) =>
  fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

const eventually = <T>(probe: () => Promise<T>, accept: (value: T) => boolean) =>
  poll(probe, (value) => value !== undefined && accept(value), 'the console API', 20_000);

type Message = { ts: string; bot?: boolean; text: string; reply_count?: number; conversation_id?: string };

describe('the console API', () => {
  it('lists conversations, their history and ledger, and the execution with its definition', async () => {
    const { ts: root } = (await (
      await post('/sandbox/slack/post', { channel: PROBE, user: 'U_REPORTER', text: 'the map is blank' })
    ).json()) as { ts: string };
    const id = conversationIdFor('kernel_probe', PROBE, root);
    await eventually(
      () => get<{ messages: Message[] }>(`/sandbox/slack/messages?channel=${PROBE}&thread_ts=${root}`),
      (r) => r.messages.some((m) => m.bot),
    );

    const top = await get<{ messages: Message[] }>(`/sandbox/slack/messages?channel=${PROBE}`);
    const list = await get<{ conversations: { id: string; workflow: string; agentTurnRunning: boolean }[] }>(
      '/sandbox/conversations',
    );
    const detail = await get<{
      conversation: { ledger: { lambdaMs?: number; transitions: number } };
      messages: { text: string }[];
      executions: { name: string }[];
    }>(`/sandbox/conversations/${id}`);
    const execution = await get<{
      stateMachine: string;
      definition: { StartAt: string; States: Record<string, unknown> };
    }>(`/sandbox/executions/${id}`);

    expect(top.messages.find((m) => m.ts === root)).toMatchObject({ reply_count: 1, conversation_id: id });
    expect(list.conversations.find((c) => c.id === id)).toMatchObject({
      workflow: 'kernel_probe',
      agentTurnRunning: false,
    });
    expect(detail.messages.map((m) => m.text)).toEqual(['the map is blank', 'probe turn 1 got 1 message(s)']);
    expect(detail.executions.map((e) => e.name)).toEqual([id]);
    expect(detail.conversation.ledger.lambdaMs).toBeGreaterThan(0);
    expect(detail.conversation.ledger.transitions).toBeGreaterThan(5);
    expect(execution.stateMachine).toMatch(/^KernelProbe/);
    expect(Object.keys(execution.definition.States)).toContain('Wait for reporter');
  });

  it('presses a button as Slack would: a signed block_actions payload through the ingress', async () => {
    const { ts: root } = (await (
      await post('/sandbox/slack/post', { channel: PROBE, user: 'U_REPORTER', text: 'charts flicker' })
    ).json()) as { ts: string };
    const id = conversationIdFor('kernel_probe', PROBE, root);
    const thread = await eventually(
      () => get<{ messages: Message[] }>(`/sandbox/slack/messages?channel=${PROBE}&thread_ts=${root}`),
      (r) => r.messages.some((m) => m.bot),
    );
    const botMessage = thread.messages.find((m) => m.bot);
    await eventually(
      () => get<{ conversation: { phase: string } }>(`/sandbox/conversations/${id}`),
      (r) => r.conversation.phase === 'awaiting_reporter',
    );

    const pressed = await post('/sandbox/slack/action', {
      channel: PROBE,
      user: 'U_REPORTER',
      message_ts: botMessage?.ts,
      action_id: 'confirm',
      value: 'yes',
    });

    expect(pressed.status).toBe(200);
    const detail = await eventually(
      () => get<{ messages: { messageType: string; text: string }[] }>(`/sandbox/conversations/${id}`),
      (r) => r.messages.some((m) => m.text === 'probe turn 2 got 1 message(s)'),
    );
    expect(detail.messages.find((m) => m.messageType === 'action')?.text).toBe('[button confirm] yes');
    await post('/sandbox/slack/post', {
      channel: PROBE,
      user: 'U_REPORTER',
      text: 'never mind',
      thread_ts: root,
    });
  });

  it('refuses a button press on a message that does not exist', async () => {
    const response = await post('/sandbox/slack/action', {
      channel: PROBE,
      user: 'U_DEV',
      message_ts: '1.000000',
      action_id: 'x',
    });

    expect(response.status).toBe(404);
  });

  it('streams a change event when something happens', async () => {
    const controller = new AbortController();
    const response = await fetch(`${sandbox.url}/sandbox/events`, { signal: controller.signal });
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let received = '';

    await post('/sandbox/slack/post', { channel: PROBE, user: 'U_THIRD', text: 'hello' });
    while (reader && !received.includes('event: change')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value);
    }
    controller.abort();

    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(received).toContain('data: {"kind":"slack"}');
  });
});
