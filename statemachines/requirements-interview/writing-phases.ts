import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { STOPPED_BY_PERSON_FIELD } from '../../lambdas/agents/contract.ts';
import type { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import type { AgentTurnProps } from '../agent-turn.ts';
import { catchFailure } from '../kernel.ts';
import type { slackPost } from '../slack-post.ts';
import { agentPass, type RecordInterviewProps } from './records.ts';
import { REQUIREMENTS_STATE } from './requirements-state.ts';
import { REQUIREMENTS_INTERVIEW_STATES, REQUIREMENTS_INTERVIEW_TEXTS, turnCapNote } from './states.ts';

/** The interview's writing phases: the PRD writer's turn, then the analysis agent's, then complete. */

/** The interview's agent roles. */
export type AgentProfileName = keyof typeof REQUIREMENTS_INTERVIEW_PROFILES;

/** The state names that start an agent's turn: Next turn, Drain, then the close check. */
export interface BeginTurnNames {
  readonly next: string;
  readonly drain: string;
  readonly close: string;
}

/** The turn's props the workflow leaves to each agent. */
export type TurnOptions = Pick<AgentTurnProps, 'mode' | 'sessionIdPath' | 'confidenceThreshold'> & {
  notesPath?: string;
};

/** A turn's result says a person stopped it (Stop): it goes back to waiting for them. */
export const stoppedByPerson = (resultPath: string) =>
  sfn.Condition.isPresent(`${resultPath}.${STOPPED_BY_PERSON_FIELD}`);

export interface WritingPhasesProps {
  /** Builds a post in the interview's thread (the workflow's own). */
  readonly post: (
    stateName: string,
    content: Pick<Parameters<typeof slackPost>[2], 'text' | 'template' | 'essential' | 'withCost'>,
  ) => tasks.LambdaInvoke;
  /** Records a transition in the interview's log. */
  readonly record: (stateName: string, props: Omit<RecordInterviewProps, 'table'>) => sfn.TaskStateBase;
  /** Marks the conversation failed with `$.failure`, then fails the execution. */
  readonly failed: sfn.IChainable;
  /** Next turn, Drain, then the close check, before `turnStates`. */
  readonly beginTurn: (names: BeginTurnNames, turnStates: sfn.IChainable) => sfn.Chain;
  /** One turn of a requirements agent, its failures caught. */
  readonly turnOf: (
    stateName: string,
    profile: AgentProfileName,
    resultPath: string,
    props: TurnOptions,
  ) => sfn.TaskStateBase;
  /** Where a turn's route goes for anything but its expected actions. */
  readonly stopped: (agent: string, resultPath: string) => sfn.Choice;
  /** Where a turn a person stopped goes back to. */
  readonly waitForAnswer: sfn.IChainable;
  /** Where the analysis, once posted and recorded, ends the interview. */
  readonly markComplete: sfn.IChainable;
  readonly maxClarificationTurns: number;
}

export interface WritingPhases {
  /** The clarification is done (threshold met): announce it, then write the PRD. */
  readonly announceReady: sfn.TaskStateBase;
  /** The turn cap was reached: note the open unknowns for the PRD, then announce it. */
  readonly noteTurnCap: sfn.Pass;
}

export function writingPhases(scope: Construct, props: WritingPhasesProps): WritingPhases {
  const { post, record, failed } = props;
  const S = REQUIREMENTS_INTERVIEW_STATES;
  const T = REQUIREMENTS_INTERVIEW_TEXTS;

  /**
   * A one-turn agent (the PRD generator, the analysis agent): record the transition, enter
   * the agent, run its turn (again while it runs out of budget), post its result.
   */
  const phase = (p: {
    agent: 'prd_generator' | 'analysis';
    /** The transition's name in the log. */
    event: string;
    names: BeginTurnNames & { record: string; enter: string; turn: string };
    route: string;
    profile: AgentProfileName;
    resultPath: string;
    turn: Pick<AgentTurnProps, 'sessionIdPath'> & { notesPath?: string };
    done: string;
    post: sfn.TaskStateBase;
  }) => {
    const task = props.turnOf(p.names.turn, p.profile, p.resultPath, { mode: 'continuation', ...p.turn });
    const start = props.beginTurn(p.names, task);
    task.next(
      sfn.Choice.jsonPath(scope, p.route)
        .when(sfn.Condition.stringEquals(`${p.resultPath}.action`, p.done), p.post)
        .when(stoppedByPerson(p.resultPath), props.waitForAnswer)
        .when(sfn.Condition.stringEquals(`${p.resultPath}.action`, 'continue'), start)
        .otherwise(props.stopped(p.agent, p.resultPath)),
    );
    catchFailure(p.post, failed);
    const recordStart = record(p.names.record, { event: p.event, agent: p.agent });
    catchFailure(recordStart, failed);
    recordStart.next(agentPass(scope, p.names.enter, p.agent)).next(start);
    return recordStart;
  };

  const recordComplete = record(S.recordComplete, { event: 'complete', agent: 'complete' });
  catchFailure(recordComplete, failed);
  recordComplete.next(props.markComplete);
  const postAnalysis = post(S.postAnalysis, {
    template: {
      name: 'requirements_analysis',
      data: {
        result: sfn.JsonPath.objectAt(REQUIREMENTS_STATE.at('analysis')),
        title: sfn.JsonPath.stringAt(REQUIREMENTS_STATE.at('prd.title')),
      },
    },
    withCost: true,
  });
  postAnalysis.next(recordComplete);
  const analysis = phase({
    agent: 'analysis',
    event: 'analysis_agent_start',
    names: {
      record: S.recordAnalysisStart,
      enter: S.enterAnalysis,
      next: S.nextAnalysisTurn,
      drain: S.drainForAnalysis,
      close: S.closeBeforeAnalysis,
      turn: S.analyse,
    },
    route: S.routeAnalysis,
    profile: 'requirements_analyst',
    resultPath: REQUIREMENTS_STATE.at('analysis'),
    turn: { sessionIdPath: REQUIREMENTS_STATE.at('prd.sessionId') },
    done: 'analysed',
    post: postAnalysis,
  });
  const postPrd = post(S.postPrd, {
    template: {
      name: 'requirements_prd',
      data: { result: sfn.JsonPath.objectAt(REQUIREMENTS_STATE.at('prd')) },
    },
  });
  postPrd.next(analysis);
  const recordPrdStart = phase({
    agent: 'prd_generator',
    event: 'prd_generation_start',
    names: {
      record: S.recordPrdStart,
      enter: S.enterPrd,
      next: S.nextPrdTurn,
      drain: S.drainForPrd,
      close: S.closeBeforePrd,
      turn: S.writePrd,
    },
    route: S.routePrd,
    profile: 'prd_writer',
    resultPath: REQUIREMENTS_STATE.at('prd'),
    turn: {
      sessionIdPath: REQUIREMENTS_STATE.at('clarification.sessionId'),
      notesPath: REQUIREMENTS_STATE.at('prdNotes.notes'),
    },
    done: 'written',
    post: postPrd,
  });
  const announceReady = post(S.announceReady, { text: T.ready });
  catchFailure(announceReady, failed);
  announceReady.next(recordPrdStart);
  const noteTurnCap = sfn.Pass.jsonPath(scope, S.noteTurnCap, {
    parameters: {
      notes: sfn.JsonPath.array(
        sfn.JsonPath.format(
          '{} {}',
          turnCapNote(props.maxClarificationTurns),
          sfn.JsonPath.jsonToString(sfn.JsonPath.listAt(REQUIREMENTS_STATE.at('clarification.openUnknowns'))),
        ),
      ),
    },
    resultPath: REQUIREMENTS_STATE.at('prdNotes'),
  });
  noteTurnCap.next(announceReady);
  return { announceReady, noteTurnCap };
}
