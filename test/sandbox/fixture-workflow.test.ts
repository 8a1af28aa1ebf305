import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { type Sandbox, startSandbox } from '../../local/sandbox.ts';
import { GREETING_MODULE } from '../fixtures/greeting-workflow/module.ts';
import { eventually } from '../support/eventually.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/**
 * A workflow module from outside the repository's own list (test/fixtures/greeting-workflow)
 * runs in the sandbox as the stack would deploy it: its trigger starts it, its own Lambda's turn
 * composes the answer, and the answer is posted in the thread it opened. The kernel, the stack
 * and the sandbox know nothing of it: the module is handed to `startSandbox` and that is all.
 */

const CHANNEL = 'C_GREETINGS';
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, timeScale: 0.001, modules: [GREETING_MODULE], logLevel: 'SILENT' });
});
afterAll(async () => sandbox?.stop());

const driver = sandboxDriver(() => sandbox);
const slashCommand = (text: string, triggerId: string) =>
  driver.slash({ command: '/greet', text, channel: CHANNEL, user: 'U_ADA', triggerId });
const messages = (threadTs?: string) => driver.messages(CHANNEL, threadTs);

describe('a workflow added from a fixture module', () => {
  it('starts on its slash command, runs its own turn and posts the answer in its thread', async () => {
    expect((await slashCommand('Ada', 'trigger-greet-1')).status).toBe(200);

    const opened = await eventually(
      async () => (await messages()).find((m) => m.bot && m.text === 'Preparing a greeting…'),
      (m) => m !== undefined,
      'the thread the workflow opens',
    );
    const thread = opened?.ts ?? '';
    const replies = await eventually(
      async () => (await messages(thread)).filter((m) => m.bot && m.ts !== thread).map((m) => m.text),
      (texts) => texts.length > 0,
      'the greeting in the thread',
    );
    expect(replies).toEqual(['Hello, Ada! (1 message(s) this turn)']);

    const store = new DynamoConversationStore({ client: sandbox.dynamodb, tableName: sandbox.tableName });
    const executions = sandbox.stepFunctions.listExecutions();
    expect(executions).toHaveLength(1);
    const id = executions[0]?.name ?? '';
    const conversation = await eventually(
      () => store.getConversation(id, { consistent: true }),
      (c) => c?.status === 'resolved',
      'the conversation resolved',
    );
    expect(conversation).toMatchObject({ workflow: 'greeting', status: 'resolved' });
  });

  it('is named nowhere in the kernel, the stack or the sandbox', () => {
    const named: string[] = [];
    const walk = (path: string) => {
      for (const name of readdirSync(path)) {
        const full = join(path, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (
          /\.(ts|js|json)$/.test(full) &&
          /greeting|GreetingTurn|\/greet\b/.test(readFileSync(full, 'utf8'))
        )
          named.push(full);
      }
    };
    for (const root of ['lambdas/kernel', 'infra', 'local']) walk(root);
    expect(named).toEqual([]);
  });
});
