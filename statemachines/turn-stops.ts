import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { FAILURE_PATH } from './kernel.ts';
import { modelRefused, noteModelRefused } from './model-stops.ts';

/**
 * An agent turn that ended without a result, noted at `$.failure` as a Catch would note a task
 * that failed, so that one message (the `agent_stopped` template) tells either with its real
 * cause: `ModelCallError` with the model's answer when the model refused the turn's call
 * (model-stops.ts), `AgentTurnStopped` with the limit's reason when a limit held by code stopped
 * the turn (`stoppedBy`), `AgentTurnUnfinished` with the turn's error otherwise, and
 * `AgentTurnFailed` when the result says none of these. Each path names only fields it checked are present, because a
 * missing path is a `States.Runtime` error no Catch can take.
 */
export function noteTurnWithoutResult(
  scope: Construct,
  props: {
    /** Where the turn's output is, e.g. `$.turnResult`. */
    turnResultPath: string;
    /** The four states' names in the graph. */
    names: { choose: string; refused: string; limit: string; unfinished: string };
    next: sfn.IChainable;
  },
): sfn.Choice {
  const { turnResultPath: at, names } = props;
  const note = (name: string, parameters: Record<string, unknown>) =>
    sfn.Pass.jsonPath(scope, name, { parameters, resultPath: FAILURE_PATH }).next(props.next);
  return sfn.Choice.jsonPath(scope, names.choose)
    .when(modelRefused(at), noteModelRefused(scope, names.refused, at).next(props.next))
    .when(
      sfn.Condition.isPresent(`${at}.stoppedBy`),
      note(names.limit, { Error: 'AgentTurnStopped', 'Cause.$': `${at}.stoppedBy` }),
    )
    .when(
      sfn.Condition.isPresent(`${at}.error`),
      note(names.unfinished, { Error: 'AgentTurnUnfinished', 'Cause.$': `${at}.error` }),
    )
    .otherwise(
      note(`${names.choose}: no reason`, {
        Error: 'AgentTurnFailed',
        Cause: 'The agent turn ended without a result or a reason',
      }),
    );
}
