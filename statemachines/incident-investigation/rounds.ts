import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import { agentTurn, MODEL_UNAVAILABLE_ERROR } from '../agent-turn.ts';
import { catchFailure, DRAINED, drain, FAILURE_PATH, replaceState } from '../kernel.ts';
import { catchModelStop, MODEL_REFUSED_ERROR, modelRefused, noteModelRefused } from '../model-stops.ts';
import type { KernelResources } from '../workflow-module.ts';
import type { IncidentFunctionId } from './functions.ts';
import { INCIDENT_STATE, ITERATION_STATE } from './incident-state.ts';
import { INCIDENT_STATES, ITERATION_STATES, ROUND_PLAN } from './states.ts';
import { recordsTask, showPhase } from './tasks.ts';

/**
 * One round of investigation (its INVESTIGATE and EVALUATE): a Map over the round's
 * hypotheses (`$.roundPlan.items`), at most `mapConcurrency` at a time. Each iteration drains
 * the pending messages under its own turn number (so a message that arrives during the round
 * reaches exactly one later turn, I3), runs the investigator's turn with the data tools, and
 * records its evaluation through the evidence rules. A failed turn is recorded as a gap, and the
 * round goes on; only a model that cannot serve the turn (model-stops.ts) fails its iteration,
 * and the round with it, to `modelStopped` with the model's error and cause at `$.failure`. After
 * the Map: the turn counter moves past the round's turns, and the round is merged into the tree.
 */
export function investigationRound(
  scope: Construct,
  kernel: KernelResources<IncidentFunctionId, IncidentInvestigationSettings>,
  then: sfn.IChainable,
  modelStopped: sfn.IChainable,
): { start: sfn.IChainable; merge: sfn.TaskStateBase } {
  const S = INCIDENT_STATES;
  const I = ITERATION_STATES;
  const records = kernel.functions.IncidentRecords;
  const agentTurnFn = kernel.functions.IncidentAgentTurn;

  // --- One hypothesis -------------------------------------------------------------------
  const done = new sfn.Succeed(scope, I.done);
  const show = showPhase(scope, I.show, {
    fn: kernel.functions.IncidentProgress,
    phase: 'hypotheses',
    next: done,
  });
  const evaluate = recordsTask(scope, I.evaluate, {
    fn: records,
    op: 'evaluation',
    payload: {
      hypothesisId: sfn.JsonPath.stringAt(ITERATION_STATE.at('item.hypothesisId')),
      round: sfn.JsonPath.numberAt(ITERATION_STATE.at('item.round')),
      turn: sfn.JsonPath.objectAt(ITERATION_STATE.at('turnResult')),
    },
  });
  evaluate.addCatch(new sfn.Succeed(scope, I.notRecorded), {
    errors: [sfn.Errors.ALL],
    resultPath: FAILURE_PATH,
  });
  evaluate.next(show);
  const noteFailed = sfn.Pass.jsonPath(scope, I.noteFailed, {
    parameters: { action: 'escalate', error: sfn.JsonPath.stringAt(`${FAILURE_PATH}.Error`) },
    resultPath: ITERATION_STATE.at('turnResult'),
  });
  noteFailed.next(evaluate);
  // The model's failure ends the iteration as failed with the model's error and cause.
  const stopIteration = sfn.Fail.jsonPath(scope, I.modelStopped, {
    errorPath: `${FAILURE_PATH}.Error`,
    causePath: `${FAILURE_PATH}.Cause`,
  });
  const refused = sfn.Choice.jsonPath(scope, I.modelRefused)
    .when(
      modelRefused(ITERATION_STATE.at('turnResult')),
      noteModelRefused(scope, I.noteModelRefused, ITERATION_STATE.at('turnResult')).next(stopIteration),
    )
    .otherwise(evaluate);
  const turn = (stateName: string, mode: 'initial' | 'continuation') => {
    const task = agentTurn(scope, stateName, {
      stateName,
      agentTurnFn,
      profile: 'incident_investigator',
      mode,
      statePath: ITERATION_STATE.at('agentState'),
      notesPath: ITERATION_STATE.at('item.notes'),
      resultPath: ITERATION_STATE.at('turnResult'),
      ...(mode === 'continuation' ? { sessionIdPath: ITERATION_STATE.at('item.sessionId') } : {}),
      modelRetry: kernel.config.agentLimits.modelRetry,
      // The data tools count this hypothesis's queries of this round under its own scope.
      toolContext: { scope: sfn.JsonPath.stringAt(ITERATION_STATE.at('item.scope')) },
    });
    catchModelStop(task, stopIteration);
    catchFailure(task, noteFailed);
    task.next(refused);
    return task;
  };
  const resume = sfn.Choice.jsonPath(scope, I.resume)
    .when(
      sfn.Condition.isPresent(ITERATION_STATE.at('item.sessionId')),
      turn(I.investigateFurther, 'continuation'),
    )
    .otherwise(turn(I.investigate, 'initial'));
  const drained = drain(scope, I.drain, { drainFn: kernel.drain });
  const skip = new sfn.Succeed(scope, I.skip);
  drained.addCatch(skip, { errors: [sfn.Errors.ALL], resultPath: FAILURE_PATH });
  const iteration = drained.next(
    sfn.Choice.jsonPath(scope, I.closeRequested)
      .when(sfn.Condition.booleanEquals(DRAINED.at('closeRequested'), true), skip)
      .otherwise(resume),
  );

  // --- The round ------------------------------------------------------------------------
  const map = sfn.Map.jsonPath(scope, S.investigateAll, {
    stateName: S.investigateAll,
    itemsPath: ROUND_PLAN.at('items'),
    maxConcurrency: kernel.settings.mapConcurrency,
    itemSelector: {
      conversationId: sfn.JsonPath.stringAt(INCIDENT_STATE.at('conversationId')),
      agentState: sfn.JsonPath.stringAt(INCIDENT_STATE.at('agentState')),
      turn: sfn.JsonPath.numberAt('$$.Map.Item.Value.turn'),
      item: sfn.JsonPath.objectAt('$$.Map.Item.Value'),
    },
    resultPath: sfn.JsonPath.DISCARD,
  });
  map.itemProcessor(iteration);
  // The turn counter moves past the turns the round's iterations used.
  const advance = sfn.Pass.jsonPath(scope, S.advanceTurn, {
    ...replaceState(
      sfn.JsonPath.jsonMerge(
        sfn.JsonPath.entirePayload,
        sfn.JsonPath.stringToJson(
          sfn.JsonPath.format('\\{"turn":{}\\}', sfn.JsonPath.stringAt(ROUND_PLAN.at('nextTurn'))),
        ),
      ),
    ),
  });
  map.addCatch(modelStopped, {
    errors: [MODEL_UNAVAILABLE_ERROR, MODEL_REFUSED_ERROR],
    resultPath: FAILURE_PATH,
  });
  map.addCatch(advance, { errors: [sfn.Errors.ALL], resultPath: INCIDENT_STATE.at('roundFailure') });
  map.next(advance);
  const merge = recordsTask(scope, S.mergeRound, {
    fn: records,
    op: 'merge',
    payload: { round: sfn.JsonPath.numberAt(ROUND_PLAN.at('round')) },
    resultPath: INCIDENT_STATE.at('merged'),
  });
  const showRound = showPhase(scope, S.showRound, {
    fn: kernel.functions.IncidentProgress,
    phase: 'hypotheses',
    next: then,
  });
  advance.next(merge);
  merge.next(showRound);
  // The merge's Catch is the caller's (its failure path).
  return { start: map, merge };
}
