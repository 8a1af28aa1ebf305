import { INCIDENT_STATE } from './incident-state.ts';

/**
 * The incident investigation's state names (written for the people reading the execution
 * graph) and texts. The state, beyond `ExecutionInput` (typed as `IncidentState`, incident-state.ts):
 * - `thread`: the incident thread's opening post (`SlackPostOutput`), in the incidents channel.
 * - `agentState`: `investigating`, the `state` of every agent turn.
 * - `notes`: notes of the triage and hypothesis turns (none).
 * - `sessions.main`: the session triage, hypotheses, conclusion and plan share.
 * - `turnResult`: the last agent turn's output (its result is stored by the next task).
 * - `roundPlan`: the plan of the round (`RoundPlan`: its items, or why the rounds end).
 * - `conclusion`: the conclusion's outcome and the remediation agent's notes.
 * - `step`, `stepApproval`, `stepDecision`, `stepRun`: the remediation step in hand.
 * - `drained`, `failure`: the kernel's.
 * Inside the Map, each iteration has its own: `conversationId`, `turn`, `item` (`RoundItem`).
 */
/** The incident thread's opening post (`thread` above). */
export const THREAD_POST = INCIDENT_STATE.slot('thread');
/** The plan of the round (`roundPlan` above): `plan_round`'s answer. */
export const ROUND_PLAN = INCIDENT_STATE.slot('roundPlan');
/** The remediation step in hand (`step` above): `next_step`'s answer. */
export const STEP = INCIDENT_STATE.slot('step');
/** The decision on it (`stepDecision` above): `decide_step`'s answer. */
export const STEP_DECISION = INCIDENT_STATE.slot('stepDecision');

export const INCIDENT_STATES = {
  prepare: 'Prepare investigation',
  fromAlert: 'Started by an alert?',
  openThread: 'Open incident thread',
  openThreadForAlert: 'Open incident thread for alert',
  startRecord: 'Start incident record',
  markTriage: 'Mark triage',
  showTriage: 'Show triage',
  recordTriage: 'Record triage',
  markHypothesize: 'Mark hypothesize',
  recordHypotheses: 'Record hypotheses',
  showHypotheses: 'Show hypotheses',
  planRound: 'Plan round',
  moreRounds: 'Another round?',
  markInvestigating: 'Mark investigating',
  investigateAll: 'Investigate hypotheses',
  advanceTurn: 'Advance turn past the round',
  mergeRound: 'Merge round',
  showRound: 'Show round',
  showFinalTree: 'Show why the rounds ended',
  markConcluding: 'Mark concluding',
  recordConclusion: 'Record conclusion',
  showConclusion: 'Show conclusion',
  markRemediating: 'Mark remediating',
  recordPlan: 'Record plan',
  showPlan: 'Show plan',
  nextStep: 'Next step',
  stepLeft: 'Any step left?',
  recordDecision: 'Record decision',
  approved: 'Approved?',
  runStep: 'Run step',
  showStep: 'Show step',
  stepError: 'Record step error',
  finish: 'Record metrics',
  markResolved: 'Mark resolved',
  remediationStopped: 'Remediation stopped?',
  markUnremediated: 'Mark closed unremediated',
  acknowledgeClose: 'Acknowledge stop',
  markClosed: 'Mark closed',
  noteFailedAgent: 'Note failed agent',
  noteModelRefused: 'Note the model refused',
  noteStoppedAgent: 'Note agent stopped by a limit',
  noteUnfinishedAgent: 'Note agent turn without a result',
  tellFailure: 'Tell responders of failure',
  markFailed: 'Mark failed',
  failed: 'Failed',
  tellUnhandled: 'Say messages were not handled',
} as const;

/** The states of one iteration of the Map: one hypothesis investigated and evaluated. */
export const ITERATION_STATES = {
  drain: 'Drain for hypothesis',
  closeRequested: 'Stop requested?',
  skip: 'Skip hypothesis',
  resume: 'Hypothesis session to resume?',
  investigate: 'Investigate hypothesis',
  investigateFurther: 'Investigate hypothesis further',
  noteFailed: 'Note failed investigation',
  modelRefused: 'Model refused the investigation?',
  noteModelRefused: 'Note the model refused the investigation',
  modelStopped: 'Model stopped the investigation',
  evaluate: 'Evaluate hypothesis',
  notRecorded: 'Evaluation not recorded',
  show: 'Show evaluation',
  done: 'Hypothesis done',
} as const;

export const INCIDENT_TEXTS = {
  acknowledgeClose: ':octagonal_sign: Investigation stopped. Nothing more will happen in this thread.',
  stoppedWaiting:
    ':pause_button: The investigation waits: write in this thread how it should go on, and it carries on from there (or say "never mind" to close it).',
  unhandled:
    ':information_source: This investigation ended before it could read the last message(s) sent to it, so they were not handled.',
  /** What the stop message (the `agent_stopped` template) names: the work and how to start it again. */
  stopped: { work: 'investigation', command: '/investigate' },
} as const;

const HOW = 'Add context in this thread at any time: it reaches the next agent turn. Say "stop" to end it.';

export function openingText(ownerId: string): string {
  return `:rotating_light: Incident investigation started by <@${ownerId}>. ${HOW}`;
}

export function alertOpeningText(source: string, name: string): string {
  return `:rotating_light: Incident investigation of the ${source} alert ${name}. ${HOW}`;
}
