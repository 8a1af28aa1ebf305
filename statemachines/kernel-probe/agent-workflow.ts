import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { KernelProbeSettings } from '../../lambdas/workflows/kernel-probe/config.ts';
import type { ProbeAgentOutput } from '../../lambdas/workflows/kernel-probe/profile.ts';
import { agentTurn } from '../agent-turn.ts';
import { catchFailure, drain, nextTurn } from '../kernel.ts';
import { failConversation, setConversationFields } from '../kernel-records.ts';
import type { KernelState } from '../kernel-state.ts';
import { stateOf } from '../result-paths.ts';
import { type PostedMessage, slackPost } from '../slack-post.ts';
import { defineWorkflow } from '../workflow-module.ts';
import type { ProbeFunctionId } from './functions.ts';

/** The probe agent's state: the thread it opened, what its turn is told, and the turn's output. */
type ProbeAgentState = KernelState & {
  readonly report: PostedMessage;
  readonly turnContext: { readonly state: string; readonly notes: readonly string[] };
  readonly result: ProbeAgentOutput;
};
const AGENT_STATE = stateOf<ProbeAgentState>();

/**
 * `kernel_probe_agent`: the probe's agent, asked with its slash command (`/probe <question>`),
 * which may name an issue of the probe's repository (each such issue is asked about once).
 * It opens a thread in the channel the command came from, runs one agent turn on the question,
 * posts the answer there with feedback buttons, and ends; an answer it cannot give fails the
 * conversation. For the sandbox tests, as the probe is.
 */
export const KERNEL_PROBE_AGENT = defineWorkflow<ProbeFunctionId, KernelProbeSettings>({
  name: 'kernel_probe_agent',
  triggers: (_config, settings) => [
    {
      type: 'slash_command',
      command: settings.command,
      description: "Ask the probe's agent a question",
      usageHint: '<question>',
      // A question may name an issue of the probe's repository: each issue is asked about once,
      // and a question naming none is asked as it is.
      ...(settings.repository === undefined
        ? {}
        : {
            names: {
              names: [{ anchor: 'github_issue' as const, repository: settings.repository }],
              anchored: false,
              once: true,
            },
          }),
    },
  ],
  ownerRole: 'reporter',
  othersRole: null,
  closeOnIntent: false,
  build(scope, { drain: drainFn, table, functions }) {
    const openThread = slackPost(scope, 'Open thread', {
      slackPostFn: functions.ProbeSlackPost,
      channel: sfn.JsonPath.stringAt(AGENT_STATE.at('channel')),
      text: sfn.JsonPath.format(
        "<@{}> asked the probe's agent",
        sfn.JsonPath.stringAt(AGENT_STATE.at('ownerId')),
      ),
      anchor: { name: 'origin', ownerRole: 'reporter', othersRole: null },
      resultPath: AGENT_STATE.at('report'),
    });
    const prepare = new sfn.Pass(scope, 'Prepare turn', {
      result: sfn.Result.fromObject({ state: 'answering', notes: [] }),
      resultPath: AGENT_STATE.at('turnContext'),
    });
    const turn = nextTurn(scope, 'Next turn');
    const drainMessages = drain(scope, 'Drain question', { drainFn });
    const answer = agentTurn(scope, 'Answer', {
      stateName: 'Answer',
      agentTurnFn: functions.ProbeAgentTurn,
      profile: 'probe_agent',
      mode: 'initial',
      statePath: AGENT_STATE.at('turnContext.state'),
      notesPath: AGENT_STATE.at('turnContext.notes'),
      resultPath: AGENT_STATE.at('result'),
    });
    const postAnswer = slackPost(scope, 'Post answer', {
      slackPostFn: functions.ProbeSlackPost,
      channel: sfn.JsonPath.stringAt(AGENT_STATE.at('report.channel')),
      threadTs: sfn.JsonPath.stringAt(AGENT_STATE.at('report.threadTs')),
      template: {
        name: 'probe_answer',
        data: { answer: sfn.JsonPath.stringAt(AGENT_STATE.at('result.answer')) },
      },
    });
    const markResolved = setConversationFields(scope, 'Mark resolved', { table, status: 'resolved' });
    const failed = failConversation(scope, 'Mark failed', { table });
    const noAnswer = new sfn.Pass(scope, 'No answer', {
      parameters: { Error: 'ProbeAgentFailed', Cause: sfn.JsonPath.stringAt(AGENT_STATE.at('result.error')) },
      resultPath: AGENT_STATE.at('failure'),
    }).next(failed);
    for (const task of [openThread, drainMessages, answer, postAnswer, markResolved])
      catchFailure(task, failed);
    const answered = sfn.Choice.jsonPath(scope, 'Answered?')
      .when(sfn.Condition.stringEquals(AGENT_STATE.at('result.action'), 'answered'), postAnswer)
      .otherwise(noAnswer);
    postAnswer.next(markResolved).next(new sfn.Succeed(scope, 'Done'));
    openThread.next(prepare).next(turn).next(drainMessages).next(answer).next(answered);
    return openThread;
  },
});
