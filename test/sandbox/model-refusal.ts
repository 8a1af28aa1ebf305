import { expect } from 'vitest';

/**
 * A conversation whose model refused the key (the sandbox's `key_rejected` fault), as every
 * workflow ends it: the execution failed with `ModelCallError` and the API's answer as its cause
 * (the error's name once), the people told with the answer.
 */

/** The API's answer to the `key_rejected` fault, as the agent runtime words it. */
export const KEY_REJECTED_ANSWER =
  'the model API answered HTTP 401 authentication_error: invalid x-api-key (sandbox fault)';

/** What a thread reads when the model refused `work`'s requests; `again` says how to start over. */
export const refusedSentence = (work: string, again: string): string =>
  `:warning: I had to stop this ${work}: the model refused its requests (${KEY_REJECTED_ANSWER}). ` +
  `Tell the people who run this app; ${again} once they have fixed it.`;

/** The execution ended failed with the model's error and answer. */
export function expectFailedWithRefusal(execution: {
  status?: string;
  error?: string;
  cause?: string;
}): void {
  expect([execution.status, execution.error, execution.cause]).toEqual([
    'FAILED',
    'ModelCallError',
    KEY_REJECTED_ANSWER,
  ]);
}
