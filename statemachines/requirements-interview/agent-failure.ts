import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { catchFailure, FAILURE_PATH } from '../kernel.ts';
import { catchModelStop } from '../model-stops.ts';
import { noteTurnWithoutResult } from '../turn-stops.ts';
import { REQUIREMENTS_STATE } from './requirements-state.ts';
import { REQUIREMENTS_INTERVIEW_STATES } from './states.ts';

/**
 * How the interview ends when an agent cannot go on: it ends the conversation as failed after
 * telling the requester in the thread why, so the interview does not just go quiet and they
 * learn whether trying again can help. The cause is the one at `$.failure`: a Catch's (the
 * model stayed unavailable, a step timed out), or the note of a turn that ended without a result
 * (the model refused the call, a limit held by code such as the daily cost ceiling or the
 * conversation's budget, or a turn that did not finish); the `agent_stopped` template words it
 * (kernel/stop-causes.ts).
 */

/** The states this part adds, by the agent whose turn stopped. */
const STOPPED_AGENT_STATES = {
  hasReason: (agent: string) => `Stopped ${agent} with a reason?`,
  noteRefused: (agent: string) => `Note the model refused ${agent}`,
  noteStopped: (agent: string) => `Note ${agent} stopped`,
  noteUnfinished: (agent: string) => `Note ${agent} turn without a result`,
} as const;

/** What the stop message names: the work stopped and how to start it again. */
export const STOPPED_INTERVIEW = { work: 'interview', command: '/prd' } as const;

export interface AgentFailureProps {
  /** Builds a post in the interview's thread (the workflow's own). */
  readonly post: (
    stateName: string,
    content: { template: { name: string; data: Record<string, unknown> } },
  ) => tasks.LambdaInvoke;
  /** Marks the conversation failed with `$.failure`, then fails the execution. */
  readonly failed: sfn.IChainable;
}

export interface AgentFailurePaths {
  /**
   * Adds a turn's Catches: a turn that failed as a task (a model that stayed unavailable first,
   * model-stops.ts) goes where its Catch's error (`$.failure`) is told as it is.
   */
  readonly catchTurn: (turn: sfn.TaskStateBase) => void;
  /**
   * Per agent, the state its route takes for anything but its expected actions: the turn's
   * reason (`<resultPath>.stoppedBy` or `.error`) noted, then told.
   */
  readonly stopped: (agent: string, resultPath: string) => sfn.Choice;
}

export function agentFailurePaths(scope: Construct, props: AgentFailureProps): AgentFailurePaths {
  const tellFailure = props.post(REQUIREMENTS_INTERVIEW_STATES.tellFailure, {
    template: {
      name: 'agent_stopped',
      data: { failure: sfn.JsonPath.objectAt(FAILURE_PATH), ...STOPPED_INTERVIEW },
    },
  });
  // Failing anyway if the message cannot be posted, with the agent's failure as the
  // execution's error (the post's own error goes elsewhere, not over `$.failure`).
  tellFailure.addCatch(props.failed, {
    errors: [sfn.Errors.ALL],
    resultPath: REQUIREMENTS_STATE.at('tellFailureError'),
  });
  // The Catch already put the failure at `$.failure`: nothing to add, a named step in the graph.
  const noteFailedAgent = sfn.Pass.jsonPath(scope, REQUIREMENTS_INTERVIEW_STATES.noteFailedAgent);
  noteFailedAgent.next(tellFailure).next(props.failed);

  const S = STOPPED_AGENT_STATES;
  const stopped = (agent: string, resultPath: string) =>
    noteTurnWithoutResult(scope, {
      turnResultPath: resultPath,
      names: {
        choose: S.hasReason(agent),
        refused: S.noteRefused(agent),
        limit: S.noteStopped(agent),
        unfinished: S.noteUnfinished(agent),
      },
      next: tellFailure,
    });
  const catchTurn = (turn: sfn.TaskStateBase) => {
    catchModelStop(turn, noteFailedAgent);
    catchFailure(turn, noteFailedAgent);
  };
  return { catchTurn, stopped };
}
