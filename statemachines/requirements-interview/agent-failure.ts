import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { FAILURE_PATH } from '../kernel.ts';
import { REQUIREMENTS_INTERVIEW_STATES, REQUIREMENTS_INTERVIEW_TEXTS } from './states.ts';

/**
 * How the interview ends when an agent cannot go on: it ends the conversation as failed after
 * telling the requester in the thread, so the interview does not just go quiet.
 *
 * An agent turn that a limit held by code stopped (the daily spending ceiling, the
 * conversation's money or token budget, its time limit: `stoppedBy` in the turn output) tells
 * the requester that reason, not the generic "an agent turn failed": they learn whether trying
 * again can help. Any other failure (the model's, a crash, a Catch) keeps the generic text.
 */

/** The states this part adds, by the agent whose turn stopped. */
export const STOPPED_AGENT_STATES = {
  tellStopped: 'Tell requester why the agent stopped',
  hasReason: (agent: string) => `Stopped ${agent} with a reason?`,
  noteStopped: (agent: string) => `Note ${agent} stopped`,
} as const;

/** The requester's message; `reason` completes "I had to stop this interview: ...". */
export function stoppedAgentText(reason: string): string {
  return `:warning: Sorry, I had to stop this interview: ${reason}. Run /prd again to start over.`;
}

export interface AgentFailureProps {
  /** Builds a post in the interview's thread (the workflow's own). */
  readonly post: (stateName: string, content: { text: string }) => tasks.LambdaInvoke;
  /** Marks the conversation failed with `$.failure`, then fails the execution. */
  readonly failed: sfn.IChainable;
}

export interface AgentFailurePaths {
  /** The generic path: an agent turn that failed after its retries, crashed, or gave no reason. */
  readonly noteFailedAgent: sfn.Pass;
  /**
   * Per agent, the state its route takes for anything but its expected actions: the reason
   * told when a limit stopped the agent (`<resultPath>.stoppedBy`), the generic path otherwise.
   */
  readonly stopped: (agent: string, resultPath: string) => sfn.Choice;
}

export function agentFailurePaths(scope: Construct, props: AgentFailureProps): AgentFailurePaths {
  const tellFailure = props.post(REQUIREMENTS_INTERVIEW_STATES.tellFailure, {
    text: REQUIREMENTS_INTERVIEW_TEXTS.agentFailed,
  });
  // Failing anyway if the message cannot be posted, with the agent's failure as the
  // execution's error (the post's own error goes elsewhere, not over `$.failure`).
  tellFailure.addCatch(props.failed, { errors: [sfn.Errors.ALL], resultPath: '$.tellFailureError' });
  const noteFailedAgent = sfn.Pass.jsonPath(scope, REQUIREMENTS_INTERVIEW_STATES.noteFailedAgent, {
    parameters: { Error: 'AgentTurnFailed', Cause: 'An agent turn failed after its retries' },
    resultPath: FAILURE_PATH,
  });
  noteFailedAgent.next(tellFailure).next(props.failed);

  const S = STOPPED_AGENT_STATES;
  const tell = props.post(S.tellStopped, {
    text: sfn.JsonPath.format(stoppedAgentText('{}'), sfn.JsonPath.stringAt(`${FAILURE_PATH}.Cause`)),
  });
  // Failing anyway if the message cannot be posted, with the stop as the execution's error.
  tell.addCatch(props.failed, { errors: [sfn.Errors.ALL], resultPath: '$.tellStoppedError' });
  tell.next(props.failed);
  const stopped = (agent: string, resultPath: string) => {
    const note = sfn.Pass.jsonPath(scope, S.noteStopped(agent), {
      parameters: { Error: 'AgentTurnStopped', 'Cause.$': `${resultPath}.stoppedBy` },
      resultPath: FAILURE_PATH,
    });
    note.next(tell);
    return sfn.Choice.jsonPath(scope, S.hasReason(agent))
      .when(
        sfn.Condition.and(
          sfn.Condition.stringEquals(`${resultPath}.action`, 'failed'),
          sfn.Condition.isPresent(`${resultPath}.stoppedBy`),
        ),
        note,
      )
      .otherwise(noteFailedAgent);
  };
  return { noteFailedAgent, stopped };
}
