import { describe, expect, it } from 'vitest';
import {
  ConversationEndedError,
  type ConversationView,
  type ExecutionView,
  type SandboxDriver,
  waitsAt,
} from '../../local/rehearsal/conversations.ts';

/**
 * The upgrade rehearsal's wait for a conversation to wait somewhere, against a driver whose
 * answers are scripted: the sandbox's state as each read sees it, one read after another.
 */

const WAIT = 'Wait for developers';
const waiting = (name: string): ExecutionView => ({
  name,
  status: 'RUNNING',
  events: [
    { type: 'TaskStateEntered', stateName: WAIT },
    { type: 'TaskSubmitted', stateName: WAIT },
  ],
});
const handedOver = (name: string): ExecutionView => ({
  name,
  status: 'SUCCEEDED',
  events: [{ type: 'SucceedStateEntered', stateName: 'Handed over' }],
});
const conversationOn = (executionName: string): ConversationView => ({
  id: 'bug-1',
  workflow: 'bug_investigation',
  status: 'active',
  phase: 'awaiting_developers',
  executionName,
  anchors: [],
  agentTurnRunning: false,
});

/** A driver whose conversation list is read from `reads` in turn (the last one repeats). */
function scriptedDriver(reads: ConversationView[], executions: ExecutionView[]): SandboxDriver {
  let read = 0;
  const byName = new Map(executions.map((execution) => [execution.name, execution]));
  const unused = () => Promise.reject(new Error('not part of this script'));
  return {
    conversations: async () => [reads[Math.min(read++, reads.length - 1)] as ConversationView],
    executionsOf: async () => executions.map(({ name, status }) => ({ name, status })),
    execution: async (name) => {
      const execution = byName.get(name);
      if (execution === undefined) throw new Error(`no execution ${name}`);
      return execution;
    },
    async waitFor(what, probe) {
      for (let attempt = 0; attempt < 10; attempt++) {
        const value = await probe();
        if (value !== undefined) return value;
      }
      throw new Error(`${what}: no answer in 10 reads`);
    },
    post: unused,
    messages: unused,
    command: unused,
    press: unused,
    openIssue: unused,
    modelFault: unused,
    modelRequests: unused,
  };
}

describe('waiting for a conversation to wait', () => {
  it('reads past a handover: the conversation named the execution that ended, then its successor', async () => {
    const driver = scriptedDriver(
      [conversationOn('bug-1'), conversationOn('bug-1-2')],
      [handedOver('bug-1'), waiting('bug-1-2')],
    );
    await expect(waitsAt(driver, 'bug-1', WAIT)).resolves.toBeUndefined();
  });

  it('fails on an execution that ended while the conversation still names it', async () => {
    const failed: ExecutionView = { name: 'bug-1', status: 'FAILED', error: 'States.Runtime', events: [] };
    const driver = scriptedDriver([conversationOn('bug-1')], [failed]);
    await expect(waitsAt(driver, 'bug-1', WAIT)).rejects.toBeInstanceOf(ConversationEndedError);
  });

  it('fails on a conversation whose execution succeeded without handing over', async () => {
    const driver = scriptedDriver([conversationOn('bug-1')], [handedOver('bug-1')]);
    await expect(waitsAt(driver, 'bug-1', WAIT)).rejects.toBeInstanceOf(ConversationEndedError);
  });
});
