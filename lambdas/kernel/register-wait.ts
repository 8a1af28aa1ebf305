import { randomUUID } from 'node:crypto';
import type { Clock, ConversationStore, Executions } from './ports.ts';
import type { RegisterWaitInput } from './tasks.ts';
import { type WakeCheck, wakeIfDue } from './wake.ts';

export interface RegisterWaitDeps {
  store: ConversationStore;
  executions: Executions;
  clock: Clock;
  newId?: () => string;
}

/**
 * Opens a wait for people. The task token stays open until the Router or this
 * function calls SendTaskSuccess, or the Task's TimeoutSeconds ends it.
 */
export async function registerWait(input: RegisterWaitInput, deps: RegisterWaitDeps): Promise<WakeCheck> {
  const wait = {
    waitId: (deps.newId ?? randomUUID)(),
    taskToken: input.taskToken,
    accepts: input.accepts,
    since: deps.clock.now().toISOString(),
  };
  // Write first: from here on, a Router that stores a message will see this wait and wake it.
  // The write returns the conversation as it left it (a close requested before it shows there;
  // one requested after it sees this wait and wakes it itself).
  const conversation = await deps.store.openWait(input.conversationId, wait, input.phase, input.status);
  // Then read: a message stored before the write above (while the agent was still running,
  // or just now) is found here, so no wake-up is lost whichever side came first.
  return wakeIfDue(deps, input.conversationId, conversation);
}
