import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { type AgentLimits, DEFAULT_AGENT_LIMITS } from '../lambdas/agents/limits.ts';
import type { createAgentTurnHandler } from '../lambdas/handlers/agent-turn.ts';
import { addTransientRetry, DRAINED, LAMBDA_TRANSIENT_ERRORS } from './kernel.ts';
import { AGENT_TURN_TIMEOUT_SECONDS } from './kernel-functions.ts';
import { KERNEL_STATE } from './kernel-state.ts';
import { type TaskInputOf, taskPayload } from './task-payload.ts';

/** What every workflow's AgentTurn function parses (`createAgentTurnHandler`'s schema). */
type AgentTurnPayload = TaskInputOf<ReturnType<typeof createAgentTurnHandler>>;

/**
 * Task timeout of an agent turn: twice the function's own timeout, as for the kernel's
 * tasks, so a turn that runs to its limit fails as a Lambda error first. The turn's own time
 * budget is well below the function's timeout.
 */
export const AGENT_TURN_TASK_TIMEOUT = Duration.seconds(2 * AGENT_TURN_TIMEOUT_SECONDS);

export interface AgentTurnProps {
  /** The state's name in the execution graph, e.g. 'Investigate'. */
  readonly stateName: string;
  /** The workflow's AgentTurn function (`agentTurnFunction`). */
  readonly agentTurnFn: IFunction;
  /** The role: one of the profiles that function serves. */
  readonly profile: string;
  /** `initial` builds the first prompt; `continuation` resumes `sessionIdPath`. */
  readonly mode: 'initial' | 'continuation';
  /** Path of the `TurnState` the turn runs in, e.g. `$.turnContext.state`. */
  readonly statePath: string;
  /** Path of the notes (a string array) the workflow tells the agent. */
  readonly notesPath: string;
  /**
   * Path of the session to resume; required for `continuation`, where it must be present.
   * @default - none (no session is resumed)
   */
  readonly sessionIdPath?: string;
  /** Where the turn's output (e.g. `BugTurnOutput`) goes, e.g. `$.result`. */
  readonly resultPath: string;
  /**
   * The confidence below which the agent must ask questions (the requirements clarifier).
   * @default - none (the profile reports no confidence)
   */
  readonly confidenceThreshold?: number;
  /**
   * Retries of a turn whose model stayed unavailable (`ModelUnavailableError`): minutes apart,
   * so a short outage of the model delays the conversation instead of ending it.
   * @default DEFAULT_AGENT_LIMITS.modelRetry (the `agentLimits.modelRetry` configuration)
   */
  readonly modelRetry?: AgentLimits['modelRetry'];
  /**
   * What the turn's tools are told (`AgentTurnInput.toolContext`, `ToolInvocation.context`):
   * the work branch code tools write to, a scope; literals or `JsonPath.stringAt(...)`.
   * @default - none: each tool's own rule (code tools: `agents/<conversation id>`)
   */
  readonly toolContext?: { readonly workBranch?: string; readonly scope?: string };
}

/** The error AgentTurn ends with when the model stayed unavailable (lambdas/agents/errors.ts). */
export const MODEL_UNAVAILABLE_ERROR = 'ModelUnavailableError';

/**
 * One agent turn (`AgentTurnInput`), with the messages the last Drain handed to this turn
 * (`$.drained.messages`) and the turn number `$.turn`. The output is the function's payload
 * as it is (the plain Lambda integration): an agent's output has optional fields, which a
 * ResultSelector could not copy without failing on the absent ones.
 *
 * Retried for transient Lambda errors, and for a model that stayed unavailable
 * (`ModelUnavailableError`) with the `modelRetry` backoff. Other model failures are not
 * errors here: the function returns `escalate` with the error itself. Add a Catch for the rest.
 */
export function agentTurn(scope: Construct, id: string, props: AgentTurnProps): tasks.LambdaInvoke {
  if (props.mode === 'continuation' && props.sessionIdPath === undefined) {
    throw new Error(`${props.stateName}: a continuation turn needs the session to resume`);
  }
  const task = tasks.LambdaInvoke.jsonPath(scope, id, {
    stateName: props.stateName,
    lambdaFunction: props.agentTurnFn,
    payloadResponseOnly: true,
    payload: taskPayload<AgentTurnPayload>({
      conversationId: sfn.JsonPath.stringAt(KERNEL_STATE.at('conversationId')),
      profile: props.profile,
      turn: sfn.JsonPath.numberAt(KERNEL_STATE.at('turn')),
      mode: props.mode,
      state: sfn.JsonPath.stringAt(props.statePath),
      ...(props.sessionIdPath === undefined ? {} : { sessionId: sfn.JsonPath.stringAt(props.sessionIdPath) }),
      messages: sfn.JsonPath.listAt(DRAINED.at('messages')),
      notes: sfn.JsonPath.listAt(props.notesPath),
      ...(props.confidenceThreshold === undefined ? {} : { confidenceThreshold: props.confidenceThreshold }),
      ...(props.toolContext === undefined ? {} : { toolContext: { ...props.toolContext } }),
    }),
    resultPath: props.resultPath,
    taskTimeout: sfn.Timeout.duration(AGENT_TURN_TASK_TIMEOUT),
    retryOnServiceExceptions: false,
  });
  addTransientRetry(task, LAMBDA_TRANSIENT_ERRORS);
  const modelRetry = props.modelRetry ?? DEFAULT_AGENT_LIMITS.modelRetry;
  if (modelRetry.maxAttempts > 0) {
    task.addRetry({
      errors: [MODEL_UNAVAILABLE_ERROR],
      interval: Duration.seconds(modelRetry.intervalSeconds),
      maxAttempts: modelRetry.maxAttempts,
      backoffRate: modelRetry.backoffRate,
    });
  }
  return task;
}
