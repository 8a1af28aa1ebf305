import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { freePort } from '../../local/free-port.ts';
import { type Sandbox, startSandbox } from '../../local/sandbox.ts';
import { STATE_FILE } from '../../local/sandbox-state.ts';
import { eventually } from '../support/eventually.ts';
import { sandboxDriver } from '../support/sandbox-driver.ts';

/**
 * A sandbox started with `state` keeps its state across a restart: a bug conversation waiting
 * for its reporter when the sandbox stops continues after the next start on the same directory
 * when the reporter answers (the offline demo model plays the agent).
 */

const REPORTS = 'C_BUG_REPORTS';
const SUMMARIES = 'C_BUG_SUMMARIES';
const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-test-'));
let sandbox: Sandbox | undefined;

let port = 0;
/**
 * A 2-hour reporter wait lasts 6 minutes here: far longer than a restart takes. Both starts
 * listen on one port, as `npm run dev` does: the handlers (loaded once in this process, like a
 * warm Lambda) keep the endpoints they were given.
 */
const start = async () => {
  port ||= await freePort();
  return startSandbox({ port, state: dir, timeScale: 0.05, logLevel: 'SILENT' });
};

afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const driver = sandboxDriver(() => {
  if (!sandbox) throw new Error('no sandbox');
  return sandbox;
});
const { messages } = driver;
const conversation = (id: string) => {
  const current = sandbox;
  if (!current) throw new Error('no sandbox');
  return new DynamoConversationStore({
    client: current.dynamodb,
    tableName: current.tableName,
  }).getConversation(id, {
    consistent: true,
  });
};
const waitsIn = (id: string, phase: string) =>
  eventually(
    () => conversation(id),
    (c) => c?.wait !== undefined && c.phase === phase,
    `${id} to wait in ${phase}`,
  );

describe('a sandbox that keeps its state', () => {
  it('continues a bug conversation waiting for its reporter after a restart, when the reporter answers', async () => {
    sandbox = await start();
    const report = await driver.post(REPORTS, 'U_REPORTER', 'something is broken');
    const bug = conversationIdFor('bug_investigation', REPORTS, report);
    await waitsIn(bug, 'awaiting_reporter');
    const asked = await messages(REPORTS, report);
    expect(asked.filter((m) => m.bot)).toHaveLength(2);
    const [before] = sandbox.stepFunctions.listExecutions({ statusFilter: 'RUNNING' });
    if (!before) throw new Error('no running execution');
    // The wait is registered before the task's invocation is answered: the history is complete
    // once the wait's task was submitted (what the stop keeps).
    const running = sandbox;
    const historyBefore = await eventually(
      () => running.stepFunctions.getExecutionHistory(before.executionArn),
      (history) => history.some((e) => e.type === 'TaskSubmitted' && e.stateName === 'Wait for reporter'),
      'the reporter wait to be submitted',
    );

    await sandbox.stop();
    sandbox = undefined;
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as {
      stepFunctions: { name: string; status: string; resume?: { stateName: string; token?: string } }[];
    };
    const waiting = saved.stepFunctions.find((execution) => execution.name === before.name);
    expect(waiting?.status).toBe('RUNNING');
    expect(waiting?.resume?.stateName).toBe('Wait for reporter');
    expect(waiting?.resume?.token).toMatch(/^AQ/);
    expect(existsSync(join(dir, 'dynamodb'))).toBe(true);

    sandbox = await start();
    // Slack's messages, the table's conversation and the execution with its history came back.
    expect(await messages(REPORTS, report)).toEqual(asked);
    expect((await conversation(bug))?.phase).toBe('awaiting_reporter');
    expect(sandbox.stepFunctions.describeExecution(before.executionArn).status).toBe('RUNNING');
    expect(sandbox.stepFunctions.getExecutionHistory(before.executionArn)).toEqual(historyBefore);

    await driver.post(REPORTS, 'U_REPORTER', 'On Safari 17 checkout shows a 500 after I click Pay', report);
    await eventually(
      () => messages(SUMMARIES),
      (list) => list.some((m) => m.bot),
      'the findings in #bug-summaries',
    );
    await waitsIn(bug, 'awaiting_dev');
    const history = sandbox.stepFunctions.getExecutionHistory(before.executionArn);
    const answered = history.filter((e) => e.type === 'TaskSucceeded' && e.stateName === 'Wait for reporter');
    expect(answered).toHaveLength(1);
    const entered = history.filter((e) => e.type === 'StateEntered' && e.stateName === 'Wait for reporter');
    expect(entered).toHaveLength(1);
    // New messages are newer than every message before the restart.
    const thread = await messages(REPORTS, report);
    const tss = thread.map((m) => Number(m.ts));
    expect(tss).toEqual([...tss].sort((a, b) => a - b));
  });
});
