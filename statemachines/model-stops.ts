import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { MODEL_ERROR_FIELD } from '../lambdas/agents/contract.ts';
import { ModelCallError } from '../lambdas/agents/errors.ts';
import { MODEL_UNAVAILABLE_ERROR } from './agent-turn.ts';
import { errorName } from './error-names.ts';
import { FAILURE_PATH } from './kernel.ts';

/**
 * One rule for every workflow: a model that cannot serve an agent turn ends the conversation as
 * failed, the people told why, the execution's error and cause the model's. No person can take
 * that over, so nothing escalates, no phase is recorded as merely inconclusive, nothing is
 * retried further. A model cannot serve a turn in two ways:
 * - it stayed unavailable through the client's and the state machine's retries: the turn fails
 *   as a task with `ModelUnavailableError`, which `catchModelStop` takes to `$.failure`;
 * - it refused the turn's call (a rejected key, an unknown model): the turn returns with
 *   `modelError` (the API's answer), which `noteModelRefused` puts at `$.failure` as a Catch
 *   would, `{ Error: 'ModelCallError', Cause: <the answer> }`.
 * The `agent_stopped` template words either (kernel/stop-causes.ts).
 */

/** The error a refusal is noted with (the agent runtime's class of a failed model call). */
export const MODEL_REFUSED_ERROR = errorName(ModelCallError);

/**
 * Sends a turn whose model stayed unavailable to `stopped`, its error and cause at `$.failure`.
 * Called before the turn's other Catches: Step Functions takes the first that matches, and a
 * Catch of every error (`catchFailure`) must come last.
 */
export function catchModelStop(turn: sfn.TaskStateBase, stopped: sfn.IChainable): void {
  turn.addCatch(stopped, { errors: [MODEL_UNAVAILABLE_ERROR], resultPath: FAILURE_PATH });
}

/** The turn's output at `resultPath` carries the model's refusal. */
export function modelRefused(resultPath: string): sfn.Condition {
  return sfn.Condition.isPresent(`${resultPath}.${MODEL_ERROR_FIELD}`);
}

/** Notes the refusal of the turn whose output is at `resultPath` at `$.failure`; chain what tells it. */
export function noteModelRefused(scope: Construct, stateName: string, resultPath: string): sfn.Pass {
  return sfn.Pass.jsonPath(scope, stateName, {
    parameters: { Error: MODEL_REFUSED_ERROR, 'Cause.$': `${resultPath}.${MODEL_ERROR_FIELD}` },
    resultPath: FAILURE_PATH,
  });
}
