import type { ITableRef } from 'aws-cdk-lib/aws-dynamodb';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { RequirementsTurnState } from '../../lambdas/workflows/requirements-interview/contract.ts';
import { addTransientRetry, DYNAMODB_TASK_TIMEOUT, DYNAMODB_TRANSIENT_ERRORS } from '../kernel.ts';
import { CONVERSATION_VERSION_STAMP, conversationItemKey } from '../kernel-records.ts';
import { REQUIREMENTS_STATE } from './requirements-state.ts';

/** The interview's own record keeping: the agent it is in, and transition log. */

/** Sets `$.currentAgent`, the state the next agent turn runs in. */
export function agentPass(scope: Construct, stateName: string, agent: RequirementsTurnState): sfn.Pass {
  return sfn.Pass.jsonPath(scope, stateName, {
    result: sfn.Result.fromString(agent),
    resultPath: REQUIREMENTS_STATE.at('currentAgent'),
  });
}

export interface RecordInterviewProps {
  readonly table: ITableRef;
  /** The transition's name in the log, e.g. `prd_generation_start` (its log lines). */
  readonly event: string;
  /** The agent the conversation is in after the transition (`current_agent`). */
  readonly agent: RequirementsTurnState | 'complete' | 'closed';
  /** Also record the clarification's confidence, and the turn's entry in `confidenceHistory`. */
  readonly confidence?: boolean;
  /**
   * The confidence check's outcome (`confidence_check` line): the entry gets the
   * confidence, the threshold and the outcome; the current agent and the history stay.
   */
  readonly check?: {
    readonly outcome: 'below_threshold' | 'threshold_met' | 'turn_cap_reached';
    readonly threshold: number;
  };
  /**
   * Creates the record (the first transition), with this metadata.
   * @default - the record exists: update it
   */
  readonly init?: { readonly confidenceThreshold: number; readonly maxClarificationTurns: number };
}

/**
 * Writes conversation state into the conversation record (`interview`) and appends
 * the transition to its log, with the direct DynamoDB integration (no logic, so no Lambda). The
 * update is conditional on the conversation existing, like `setConversationFields`.
 */
export function recordInterviewState(
  scope: Construct,
  id: string,
  props: RecordInterviewProps,
): tasks.DynamoUpdateItem {
  const V = tasks.DynamoAttributeValue;
  const text = (value: string) => V.fromString(value);
  const list = (values: tasks.DynamoAttributeValue[]) => V.fromList(values);
  const map = (values: Record<string, tasks.DynamoAttributeValue>) => V.fromMap(values);
  // A number from the state: DynamoDB's `N` is a string, so the number is formatted into one.
  const number = (path: string) => V.numberFromString(sfn.JsonPath.format('{}', sfn.JsonPath.stringAt(path)));
  const zero = V.fromNumber(0);
  // Turns in the current agent: the clarification counts its turns; the others have one each.
  const turns = props.agent === 'clarification' ? number(REQUIREMENTS_STATE.at('clarificationTurns')) : zero;
  const confidence = number(REQUIREMENTS_STATE.at('clarification.confidence'));
  // When this state was entered (every transition is timed): the service's own clock, no Lambda.
  const at = text(sfn.JsonPath.stringAt('$$.State.EnteredTime'));
  const entry = map({
    event: text(props.event),
    agent: text(props.agent),
    turn: number(REQUIREMENTS_STATE.at('turn')),
    turnsInAgent: turns,
    ...(props.confidence || props.check ? { confidence } : {}),
    ...(props.check
      ? { outcome: text(props.check.outcome), threshold: V.fromNumber(props.check.threshold) }
      : {}),
    at,
  });
  let update: string;
  let values: Record<string, tasks.DynamoAttributeValue>;
  if (props.init) {
    update = 'SET interview = :interview';
    values = {
      ':interview': map({
        currentAgent: text(props.agent),
        confidence: zero,
        turnsInAgent: zero,
        confidenceHistory: list([]),
        transitions: list([entry]),
        metadata: map({
          confidenceThreshold: V.fromNumber(props.init.confidenceThreshold),
          maxClarificationTurns: V.fromNumber(props.init.maxClarificationTurns),
        }),
      }),
    };
  } else {
    const sets = ['interview.transitions = list_append(interview.transitions, :log)'];
    values = { ':log': list([entry]) };
    if (!props.check) {
      sets.push('interview.currentAgent = :agent', 'interview.turnsInAgent = :turns');
      values[':agent'] = text(props.agent);
      values[':turns'] = turns;
    }
    if (props.confidence) {
      sets.push(
        'interview.confidence = :confidence',
        'interview.confidenceHistory = list_append(interview.confidenceHistory, :history)',
      );
      values[':confidence'] = confidence;
      values[':history'] = list([
        map({
          turn: turns,
          confidence,
          reason: text(sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('clarification.confidenceReason'))),
          at,
        }),
      ]);
    }
    update = `SET ${sets.join(', ')}`;
  }
  const task = tasks.DynamoUpdateItem.jsonPath(scope, id, {
    stateName: id,
    table: props.table,
    key: conversationItemKey(),
    updateExpression: `${update}, ${CONVERSATION_VERSION_STAMP.set}`,
    conditionExpression: 'attribute_exists(pk)',
    expressionAttributeNames: CONVERSATION_VERSION_STAMP.names,
    expressionAttributeValues: { ...values, ...CONVERSATION_VERSION_STAMP.values },
    resultPath: sfn.JsonPath.DISCARD,
    taskTimeout: sfn.Timeout.duration(DYNAMODB_TASK_TIMEOUT),
  });
  addTransientRetry(task, DYNAMODB_TRANSIENT_ERRORS);
  return task;
}
