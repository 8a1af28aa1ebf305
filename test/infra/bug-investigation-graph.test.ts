import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { BugAction } from '../../lambdas/workflows/bug-investigation/contract.ts';
import { BUG_INVESTIGATION_STATES as S } from '../../statemachines/bug-investigation/states.ts';
import {
  type AslDefinition,
  type AslState,
  aliasOf,
  definitions,
  publishedVersionOf,
  templateOf,
  UNHANDLED_NOTICE_STATES,
} from './template.ts';

const ACCEPTED = 'Hand-over version accepted?';
const NOT_ACCEPTED = 'Hand-over version not accepted';

/**
 * The bug investigation's graph as deployed (the production template): the edges an auditor
 * follows in the console, and the settings each state takes from the configuration. The
 * checks every definition passes (timeouts, retries, catches, no Assign) are in
 * state-machines.test.ts; the behaviour, run locally, is in test/statemachines.
 */
const template = templateOf();
const bug = definitionOf(template, 'bug_investigation');
const state = (name: string): AslState => {
  const found = bug.States[name];
  if (found === undefined) throw new Error(`no state "${name}"`);
  return found;
};
type Choice = { Variable?: string; StringEquals?: string; Next: string } & Record<string, unknown>;
const choices = (name: string) => state(name).Choices as Choice[];
const catchers = (name: string) => state(name).Catch as { ErrorEquals: string[]; Next: string }[];

describe('the bug_investigation graph', () => {
  it('has exactly the states of BUG_INVESTIGATION_STATES, by their readable names', () => {
    expect(Object.keys(bug.States).sort()).toEqual(
      [...Object.values(S), ...Object.values(UNHANDLED_NOTICE_STATES), ACCEPTED, NOT_ACCEPTED].sort(),
    );
  });

  it('prepares the state, acknowledges the report, then enters the loop', () => {
    expect(bug.StartAt).toBe(S.prepare);
    expect(state(S.prepare).Next).toBe(S.resuming);
    expect(state(S.resuming)).toMatchObject({
      Choices: [{ Variable: '$.handedOverFrom', IsPresent: true, Next: ACCEPTED }],
      Default: S.acknowledgeReport,
    });
    // A hand-over is taken in only in a shape this release reads (absent: the release before).
    expect(state(ACCEPTED)).toMatchObject({ Default: NOT_ACCEPTED });
    expect(choices(ACCEPTED).map((c) => c.Next)).toEqual([S.timeToHandOver, NOT_ACCEPTED, S.timeToHandOver]);
    expect(state(NOT_ACCEPTED)).toMatchObject({ Type: 'Fail', Error: 'HandoverVersionNotAccepted' });
    expect(state(S.acknowledgeReport).Next).toBe(S.timeToHandOver);
  });

  it('starts each turn by counting it and draining, Drain marking the conversation investigating', () => {
    expect(state(S.timeToHandOver)).toMatchObject({
      Choices: [{ Variable: '$.turn', NumericGreaterThanEqualsPath: '$.handoverAtTurn', Next: S.handOver }],
      Default: S.nextTurn,
    });
    expect(state(S.nextTurn).Next).toBe(S.drain);
    expect(state(S.drain)).toMatchObject({
      Parameters: { Payload: { mark: { status: 'active', phase: 'investigating' } } },
      Next: S.closeRequested,
    });
  });

  it('closes on request, announces a developer follow-up, and resumes the session when there is one', () => {
    expect(choices(S.closeRequested).map((choice) => choice.Next)).toEqual([
      S.acknowledgeClose,
      S.announceFollowUp,
      S.continueInvestigation,
    ]);
    expect(state(S.closeRequested).Default).toBe(S.investigate);
    expect(state(S.announceFollowUp).Next).toBe(S.sessionToResume);
    expect(state(S.sessionToResume)).toMatchObject({
      Choices: [{ Variable: '$.result.sessionId', IsPresent: true, Next: S.continueInvestigation }],
      Default: S.investigate,
    });
  });

  it('routes every BugAction, and anything else to the escalation path through the findings', () => {
    const [refused, stopped, ...byAction] = choices(S.routeOnAction);
    // First: a turn whose model refused its call ends the conversation, told with the model's answer.
    expect(refused).toMatchObject({
      Variable: '$.result.modelError',
      IsPresent: true,
      Next: S.noteModelRefused,
    });
    // Then: an escalation the runtime made (it carries the error) tells the reporter first.
    expect(stopped).toMatchObject({
      And: [
        { Variable: '$.result.action', StringEquals: 'escalate' },
        { Variable: '$.result.error', IsPresent: true },
      ],
      Next: S.tellReporterStopped,
    });
    expect(state(S.tellReporterStopped).Next).toBe(S.summaryThreadOpen);
    const action = (name: string) => ({ Variable: '$.result.action', StringEquals: name });
    const findingsAction = { Or: [action('post_findings'), action('resolved'), action('escalate')] };
    expect(byAction).toEqual([
      // Without a repository a fix request is taken as findings (the fix path: bug-fix-path.test.ts).
      { ...action('fix_requested'), Next: S.summaryThreadOpen },
      { ...action('ask_reporter'), Next: S.askReporter },
      // Findings go straight to their post: updated in the summary thread once it is open.
      {
        And: [findingsAction, { Variable: '$.threads.summary', IsPresent: true }],
        Next: S.postUpdatedFindings,
      },
      { ...findingsAction, Next: S.postFindings },
      // A turn a person stopped goes back to the wait it came from (Stop only stops).
      { Variable: '$.result.stoppedByPerson', IsPresent: true, Next: S.stoppedByPerson },
      { ...action('continue'), Next: S.keepInvestigating },
    ]);
    const routed = JSON.stringify(byAction).match(/"StringEquals":"[a-z_]+"/g) ?? [];
    expect(new Set(routed.map((m) => m.split('"')[3])).size).toBe(BugAction.options.length);
    expect(state(S.routeOnAction).Default).toBe(S.summaryThreadOpen);
    expect(state(S.summaryThreadOpen)).toMatchObject({
      Choices: [{ Variable: '$.threads.summary', IsPresent: true, Next: S.postUpdatedFindings }],
      Default: S.postFindings,
    });
    expect(choices(S.routeOnConclusion).map((c) => [c.StringEquals, c.Next])).toEqual([
      ['resolved', S.tellResolved],
      ['post_findings', S.awaitingDevelopers],
    ]);
    expect(state(S.routeOnConclusion).Default).toBe(S.escalate);
  });

  it('asks the reporter, then waits for the reporter only and loops', () => {
    expect(state(S.askReporter).Next).toBe(S.awaitingReporter);
    expect(state(S.awaitingReporter)).toMatchObject({
      Result: { state: 'awaiting_reporter', notes: [], followUp: false },
      ResultPath: '$.turnContext',
      Next: S.waitForReporter,
    });
    expect(state(S.waitForReporter)).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::lambda:invoke.waitForTaskToken',
      Parameters: { Payload: { accepts: ['reporter'], phase: 'awaiting_reporter' } },
      TimeoutSeconds: 7200,
      Next: S.timeToHandOver,
    });
  });

  it('investigates on with a note when the reporter does not answer in time', () => {
    expect(catchers(S.waitForReporter)[0]).toMatchObject({
      ErrorEquals: ['States.Timeout'],
      Next: S.noteReporterSilence,
    });
    expect(state(S.noteReporterSilence)).toMatchObject({
      Result: {
        state: 'awaiting_reporter',
        notes: [expect.stringContaining('did not answer your clarification question within 2 hours')],
      },
      Next: S.timeToHandOver,
    });
  });

  it('posts findings in a new summary thread, or in the open one, before resolving or waiting', () => {
    expect(state(S.summaryThreadOpen)).toMatchObject({
      Choices: [{ Variable: '$.threads.summary', IsPresent: true, Next: S.postUpdatedFindings }],
      Default: S.postFindings,
    });
    expect(state(S.postFindings)).toMatchObject({
      Parameters: {
        Payload: {
          channel: 'C_BUG_SUMMARIES',
          template: {
            name: 'bug_findings',
            data: { 'result.$': '$.result', 'executionArn.$': '$$.Execution.Id' },
          },
          anchor: { name: 'summary', othersRole: 'developer' },
        },
      },
      ResultPath: '$.threads.summary',
      Next: S.tellFindingsPosted,
    });
    // the reporter hears the findings went to the developers, with their permalink.
    expect(state(S.tellFindingsPosted)).toMatchObject({
      Parameters: {
        Payload: {
          'channel.$': '$.channel',
          'threadTs.$': '$.threadTs',
          template: { name: 'bug_findings_posted', data: { 'channel.$': '$.threads.summary.channel' } },
          permalinkOf: { 'channel.$': '$.threads.summary.channel', 'ts.$': '$.threads.summary.ts' },
        },
      },
      Next: S.routeOnConclusion,
    });
    expect(catchers(S.tellFindingsPosted)[0]?.Next).toBe(S.routeOnConclusion);
    expect(state(S.postUpdatedFindings)).toMatchObject({
      Parameters: {
        Payload: { 'channel.$': '$.threads.summary.channel', 'threadTs.$': '$.threads.summary.threadTs' },
      },
      Next: S.routeOnConclusion,
    });
  });

  it('escalates to the on-call group, starts SLA tracking, then waits for developers', () => {
    expect(state(S.escalate)).toMatchObject({
      Parameters: {
        Payload: {
          channel: 'C_DEVELOPERS',
          template: { name: 'bug_escalation', data: { onCallGroupId: 'S_ONCALL' } },
          anchor: { name: 'escalation', othersRole: 'developer' },
        },
      },
      ResultPath: '$.threads.escalation',
      Next: S.startSlaTracking,
    });
    const [slaId] = stateMachineId(template, 'sla_tracking');
    expect(state(S.startSlaTracking)).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::states:startExecution',
      Parameters: {
        StateMachineArn: `<${aliasOf(template, slaId)}.Arn>`,
        'Name.$': "States.Format('{}-{}', $.conversationId, $.turn)",
        Input: { 'threadTs.$': '$.threads.escalation.ts', 'severity.$': '$.result.severity', level: 0 },
      },
      Next: S.awaitingDevelopers,
    });
    // The on-call group was paged already: a failed SLA start does not end the conversation.
    expect(catchers(S.startSlaTracking).map((c) => c.Next)).toEqual([
      S.awaitingDevelopers,
      S.awaitingDevelopers,
    ]);
    expect(state(S.awaitingDevelopers)).toMatchObject({
      Result: { state: 'awaiting_dev', notes: [], followUp: true },
      ResultPath: '$.turnContext',
      Next: S.waitForDevelopers,
    });
    expect(state(S.waitForDevelopers)).toMatchObject({
      Parameters: { Payload: { accepts: 'any', phase: 'awaiting_dev', status: 'pending_verification' } },
      TimeoutSeconds: 172_800,
      Next: S.timeToHandOver,
    });
    expect(catchers(S.waitForDevelopers)[0]).toMatchObject({
      ErrorEquals: ['States.Timeout'],
      Next: S.tellResolvedNoFollowUp,
    });
  });

  it('turns a failed agent turn into an escalation with the error, but a model that stayed unavailable into a failure', () => {
    const unavailable = {
      ErrorEquals: ['ModelUnavailableError'],
      ResultPath: '$.failure',
      Next: S.tellModelStop,
    };
    expect(catchers(S.investigate)).toEqual([
      unavailable,
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: S.noteFailedInvestigation },
    ]);
    expect(catchers(S.continueInvestigation)).toEqual([
      unavailable,
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: S.noteFailedContinuation },
    ]);
    for (const name of [S.noteFailedInvestigation, S.noteFailedContinuation]) {
      expect(state(name)).toMatchObject({
        Parameters: { action: 'escalate', 'error.$': 'States.JsonToString($.failure)' },
        ResultPath: '$.result',
        Next: S.tellReporterStopped,
      });
    }
    expect(state(S.noteFailedContinuation).Parameters).toHaveProperty('sessionId.$', '$.result.sessionId');
  });

  it('tells the reporter why the model stopped it, with the failure, then marks the conversation failed and fails', () => {
    expect(state(S.noteModelRefused)).toMatchObject({
      Type: 'Pass',
      Parameters: { Error: 'ModelCallError', 'Cause.$': '$.result.modelError' },
      ResultPath: '$.failure',
      Next: S.tellModelStop,
    });
    expect(state(S.tellModelStop)).toMatchObject({
      Parameters: {
        Payload: {
          template: {
            name: 'agent_stopped',
            data: { 'failure.$': '$.failure', work: 'investigation', restart: 'Post the report again' },
          },
        },
      },
      ResultPath: '$.failureNotice',
      Next: S.markFailed,
    });
    // Told or not (Slack down past the retries), the conversation ends failed with the model's error.
    expect(catchers(S.tellModelStop)).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.failureNoticeError', Next: S.markFailed },
    ]);
    expect(state(S.markFailed).Next).toBe(S.failed);
    expect(state(S.failed)).toMatchObject({
      Type: 'Fail',
      ErrorPath: '$.failure.Error',
      CausePath: '$.failure.Cause',
    });
  });

  it('calls its AgentTurn with the AgentTurnInput of the first turn and of a continuation', () => {
    const agentTurnVersion = publishedVersionOf(template, 'BugInvestigationAgentTurn');
    expect(state(S.investigate)).toMatchObject({
      Resource: `<${agentTurnVersion}>`,
      Parameters: { profile: 'bug_investigator', mode: 'initial', 'state.$': '$.turnContext.state' },
      ResultPath: '$.result',
      Next: S.routeOnAction,
    });
    expect(state(S.investigate).Parameters).not.toHaveProperty('sessionId.$');
    expect(state(S.continueInvestigation)).toMatchObject({
      Parameters: { mode: 'continuation', 'sessionId.$': '$.result.sessionId' },
      Next: S.routeOnAction,
    });
  });

  it('ends by resolving, then drains once more in a closing turn', () => {
    // the close and the resolution are told with the conversation's cost, and a close
    // is announced in the findings thread when there is one.
    expect(state(S.acknowledgeClose)).toMatchObject({
      Parameters: { Payload: { 'channel.$': '$.channel', withCost: true } },
      Next: S.developersToTell,
    });
    expect(catchers(S.acknowledgeClose)[0]?.Next).toBe(S.developersToTell);
    expect(state(S.developersToTell)).toMatchObject({
      Choices: [{ Variable: '$.threads.summary', IsPresent: true, Next: S.announceClose }],
      Default: S.markResolved,
    });
    expect(state(S.announceClose)).toMatchObject({
      Parameters: {
        Payload: { 'channel.$': '$.threads.summary.channel', 'threadTs.$': '$.threads.summary.threadTs' },
      },
      Next: S.markResolved,
    });
    for (const name of [S.tellResolved, S.tellResolvedNoFollowUp]) {
      expect(state(name)).toMatchObject({
        Parameters: { Payload: { 'channel.$': '$.channel', 'threadTs.$': '$.threadTs', withCost: true } },
        Next: S.markResolved,
      });
      expect(catchers(name)[0]?.Next).toBe(S.markResolved);
    }
    expect(state(S.markResolved)).toMatchObject({
      Parameters: {
        ExpressionAttributeValues: { ':status': { S: 'resolved' }, ':phase': { S: 'resolved' } },
      },
      Next: S.closingTurn,
    });
    expect(state(S.closingTurn).Next).toBe(S.cleanUp);
    expect(state(S.cleanUp).Next).toBe(UNHANDLED_NOTICE_STATES.anyDrained);
    expect(catchers(S.cleanUp)[0]?.Next).toBe(S.cleanUpFailed);
    // Messages no turn saw are said to be unhandled, in the reporter's thread (a cosmetic post).
    expect(state(UNHANDLED_NOTICE_STATES.anyDrained)).toMatchObject({
      Choices: [{ Variable: '$.drained.messages[0]', IsPresent: true, Next: UNHANDLED_NOTICE_STATES.pick }],
      Default: S.done,
    });
    expect(state(S.tellUnhandled).Next).toBe(S.done);
    expect(catchers(S.tellUnhandled)[0]?.Next).toBe(S.done);
  });

  it('hands over by starting its own state machine, records it, and ends', () => {
    expect(state(S.handOver)).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::states:startExecution',
      Parameters: {
        // Its own alias, named from `$$.StateMachine.Id` (a definition cannot name its own alias).
        'StateMachineArn.$':
          "States.Format('arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:stateMachine:{}:live', States.ArrayGetItem(States.StringSplit($$.StateMachine.Id, ':'), 6))",
        'Name.$': "States.Format('{}-{}', $.conversationId, $.turn)",
      },
      Next: S.recordHandover,
    });
    expect(catchers(S.handOver).map((c) => [c.ErrorEquals[0], c.Next])).toEqual([
      ['StepFunctions.ExecutionAlreadyExistsException', S.handedOver],
      ['States.ALL', S.nextTurn],
    ]);
    expect(state(S.recordHandover)).toMatchObject({
      Resource: 'arn:<AWS::Partition>:states:::dynamodb:updateItem',
      Parameters: {
        UpdateExpression: `SET executionName = :name, executionArn = :arn, #schemaVersion = if_not_exists(#schemaVersion, :schemaVersion)`,
      },
      Next: S.handedOver,
    });
    expect(state(S.handedOver).Type).toBe('Succeed');
  });

  it('takes its waits and its handover threshold from the configuration', () => {
    const configured = definitionOf(
      templateOf({
        config: {
          reporterWaitSeconds: 60,
          developerWaitSeconds: 120,
          bugInvestigation: { continueAsNewAfterTurns: 3 },
        },
      }),
      'bug_investigation',
    );
    expect(configured.States[S.waitForReporter]?.TimeoutSeconds).toBe(60);
    expect(configured.States[S.waitForDevelopers]?.TimeoutSeconds).toBe(120);
    expect(JSON.stringify(configured.States[S.prepare]?.Parameters)).toContain('States.MathAdd($.turn, 3)');
    expect(JSON.stringify(configured.States[S.noteReporterSilence]?.Result)).toContain('within 1 minute.');
  });
});

function definitionOf(from: Template, name: string): AslDefinition {
  const definition = definitions(from).get(name);
  if (definition === undefined) throw new Error(`${name} is not in the template`);
  return definition;
}

function stateMachineId(from: Template, name: string): [string] {
  const found = Object.entries(from.findResources('AWS::StepFunctions::StateMachine')).find(
    ([, resource]) =>
      (resource as { Metadata?: Record<string, unknown> }).Metadata?.['slack-agents:workflow'] === name,
  );
  if (found === undefined) throw new Error(`no state machine marked ${name}`);
  return [found[0]];
}
