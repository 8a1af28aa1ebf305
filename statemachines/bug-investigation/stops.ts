import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { EscalationSeverity } from '../../lambdas/agents/limits.ts';
import type { BugAction } from '../../lambdas/workflows/bug-investigation/contract.ts';
import { catchFailure, FAILURE_PATH } from '../kernel.ts';
import { tellThen } from '../kernel-records.ts';
import { noteModelRefused } from '../model-stops.ts';
import { slackPost } from '../slack-post.ts';
import { BUG_STATE, FIX } from './bug-state.ts';
import { BUG_INVESTIGATION_STATES as S, BUG_INVESTIGATION_TEXTS as T, TURN_RESULT } from './states.ts';

/**
 * Where the bug investigation goes when its agent stops on its own: a limit reached or a turn
 * that failed, where the reporter is told in plain words and the findings and the escalation go
 * to the developers as for any escalation; and a model that cannot serve it, which ends the
 * conversation as failed with the model's cause.
 */

/** What the reporter reads when the agent stopped on its own, with the summary's reason. */
export function agentStoppedText(summaryPath: string): string {
  return sfn.JsonPath.format(
    ":warning: I had to stop investigating this automatically, so I've asked the developers to take over. {}",
    sfn.JsonPath.stringAt(summaryPath),
  );
}

/** Tells the reporter, in their thread, that the agent stopped; a cosmetic post. */
export function tellReporterStopped(
  scope: Construct,
  props: { slackPostFn: IFunction; channel: string; threadTs: string; next: sfn.IChainable },
): sfn.TaskStateBase {
  const tell = slackPost(scope, S.tellReporterStopped, {
    slackPostFn: props.slackPostFn,
    channel: props.channel,
    threadTs: props.threadTs,
    text: agentStoppedText(TURN_RESULT.at('summary')),
    essential: false,
  });
  catchFailure(tell, props.next);
  tell.next(props.next);
  return tell;
}

/**
 * A turn that failed after its retries (the function crashed, or the model stayed
 * unavailable through the state machine's retries) becomes an `escalate` result with the
 * error. Its severity is the agent's last assessment when there is one (a continuation),
 * else the configured one, never a fixed level.
 */
export function failedTurn(
  scope: Construct,
  props: {
    stateName: string;
    keepSession: boolean;
    defaultSeverity: EscalationSeverity;
    next: sfn.IChainable;
  },
): sfn.Pass {
  const pass = sfn.Pass.jsonPath(scope, props.stateName, {
    parameters: {
      action: 'escalate' satisfies BugAction,
      summary: sfn.JsonPath.format(
        'The investigation turn failed ({}), so a developer needs to take over.',
        sfn.JsonPath.stringAt(`${FAILURE_PATH}.Error`),
      ),
      confidence: 0,
      severity: props.keepSession ? sfn.JsonPath.stringAt(TURN_RESULT.at('severity')) : props.defaultSeverity,
      error: sfn.JsonPath.jsonToString(sfn.JsonPath.objectAt(FAILURE_PATH)),
      ...(props.keepSession ? { sessionId: sfn.JsonPath.stringAt(TURN_RESULT.at('sessionId')) } : {}),
    },
    resultPath: TURN_RESULT.path,
  });
  pass.next(props.next);
  return pass;
}

/** What the reporter reads the stop as: the work, and how to start it again (no command starts it). */
export const STOPPED_BUG_INVESTIGATION = { work: 'investigation', restart: 'Post the report again' } as const;

/** Where a turn goes when its model cannot serve it (model-stops.ts). */
export interface ModelStop {
  /** Where `catchModelStop` takes a turn whose model stayed unavailable (the failure at `$.failure`). */
  readonly caught: sfn.IChainable;
  /** Where a turn whose output carries `modelError` goes. */
  readonly refused: sfn.IChainable;
}

/**
 * Tells a thread, with the `agent_stopped` template, why the work `stopped` stopped (the failure
 * at `$.failure`), then goes on to `next`, told or not.
 */
export function tellStop(
  scope: Construct,
  props: {
    stateName: string;
    slackPostFn: IFunction;
    thread: { channel: string; threadTs: string };
    stopped: { work: string; restart: string };
    next: sfn.IChainable;
  },
): sfn.IChainable {
  const { stateName, slackPostFn, thread, stopped } = props;
  const failure = sfn.JsonPath.objectAt(FAILURE_PATH);
  const template = { name: 'agent_stopped', data: { failure, ...stopped } };
  return tellThen(scope, stateName, { stateName, slackPostFn, ...thread, template }, props.next);
}

/**
 * A model that cannot serve the investigator's turn (model-stops.ts): no developer can take that
 * over, so, as the other workflows end when their model cannot go on, the reporter is told why
 * and the conversation ends as failed, the execution's error and cause the model's. The fixer's
 * turn ends the same way (fix-path.ts). `failed` marks the conversation failed and fails the
 * execution with `$.failure`.
 */
export function modelStop(
  scope: Construct,
  props: {
    slackPostFn: IFunction;
    reporterThread: { channel: string; threadTs: string };
    failed: sfn.IChainable;
  },
): ModelStop {
  const caught = tellStop(scope, {
    stateName: S.tellModelStop,
    slackPostFn: props.slackPostFn,
    thread: props.reporterThread,
    stopped: STOPPED_BUG_INVESTIGATION,
    next: props.failed,
  });
  return { caught, refused: noteModelRefused(scope, S.noteModelRefused, TURN_RESULT.path).next(caught) };
}

/** What the developers read when the model stopped the fix they asked for (the conversation ends with it). */
export const STOPPED_BUG_FIX = { work: 'fix', restart: 'Post the report again' } as const;

/**
 * A model that cannot serve the fixer's turn ends the conversation as the investigator's does
 * (`modelStop`: the reporter told, the execution failed with the model's cause), the developers
 * told first in the findings thread where they asked for the fix. What was accepted stays: the
 * findings, the messages, the commits on the work branch.
 */
export function fixerModelStop(
  scope: Construct,
  props: {
    slackPostFn: IFunction;
    thread: { channel: string; threadTs: string };
    modelStop: ModelStop;
    names: { tell: string; refused: string };
  },
): ModelStop {
  const caught = tellStop(scope, {
    stateName: props.names.tell,
    slackPostFn: props.slackPostFn,
    thread: props.thread,
    stopped: STOPPED_BUG_FIX,
    next: props.modelStop.caught,
  });
  return { caught, refused: noteModelRefused(scope, props.names.refused, FIX.at('turn')).next(caught) };
}

/** Says, in the reporter's thread, that the close recorded messages no turn saw; a cosmetic post. */
export function tellUnhandled(
  scope: Construct,
  props: { slackPostFn: IFunction; channel: string; threadTs: string },
): sfn.TaskStateBase {
  return slackPost(scope, S.tellUnhandled, { ...props, text: T.unhandled, essential: false });
}

/**
 * A turn a person stopped goes back to the wait it came from, no other turn: a follow-up turn
 * (developers wrote after the findings) to waiting for the developers, any other turn to
 * waiting for the reporter.
 */
export function backToTheWait(
  scope: Construct,
  waits: { developers: sfn.IChainable; reporter: sfn.IChainable },
): sfn.Choice {
  return sfn.Choice.jsonPath(scope, S.stoppedByPerson)
    .when(
      sfn.Condition.and(
        sfn.Condition.isPresent(BUG_STATE.at('turnContext.followUp')),
        sfn.Condition.booleanEquals(BUG_STATE.at('turnContext.followUp'), true),
      ),
      waits.developers,
    )
    .otherwise(waits.reporter);
}
