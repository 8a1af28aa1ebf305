/**
 * Why a workflow stopped, in words for the people in its thread, and what they can do: one
 * place that maps the error a state machine's Catch records (`Error`, `Cause`) to a sentence.
 * The names are the agent turn's (`ModelUnavailableError`), the workflow's own notes of a turn
 * that ended without a result (`AgentTurnStopped` by a limit, `AgentTurnUnfinished`, and
 * `ModelCallError` for a call the model refused), and Step Functions' (`States.Timeout`).
 */

/** A failure as a Catch records it; a Catch in AWS may leave out `Cause`. */
export interface StopFailure {
  readonly Error?: string | undefined;
  readonly Cause?: string | undefined;
}

/**
 * What was stopped and how to start it again: a command (`{ work: 'investigation', command:
 * '/investigate' }`), or for work no command starts, what to do instead (`{ work: 'bug
 * investigation', restart: 'Post the report again' }`).
 */
export type StoppedWork =
  | { readonly work: string; readonly command: string }
  | { readonly work: string; readonly restart: string };

/** How to start the work again, as the head of a sentence: "Run /prd again", "Post the report again". */
function startAgain(stopped: StoppedWork): string {
  return 'command' in stopped ? `Run ${stopped.command} again` : stopped.restart;
}

export type StopCause =
  | 'cost_ceiling'
  | 'budget'
  | 'turn_unfinished'
  | 'model_unavailable'
  | 'model_refused'
  | 'timed_out'
  | 'step_failed';

/** The kind of stop an error name (and, for a limit, its reason) stands for. */
export function stopCauseOf(failure: StopFailure): StopCause {
  const cause = failure.Cause ?? '';
  switch (failure.Error) {
    case 'AgentTurnStopped':
      if (/spending ceiling|for today/i.test(cause)) return 'cost_ceiling';
      // A limit that counts turns without a result is a turn that did not finish, not money.
      if (/in a row without reaching a result/i.test(cause)) return 'turn_unfinished';
      return 'budget';
    case 'AgentTurnUnfinished':
    case 'AgentTurnFailed':
      return 'turn_unfinished';
    case 'ModelUnavailableError':
      return 'model_unavailable';
    // The workflows note a call the model refused (no retry can fix it) with this name.
    case 'ModelCallError':
      return 'model_refused';
    case 'States.Timeout':
    case 'Sandbox.Timedout':
      return 'timed_out';
    default:
      return 'step_failed';
  }
}

/** A reason as the agent runtime words it, cut short and without a trailing period. */
function reasonOf(failure: StopFailure): string {
  const cause = (failure.Cause ?? '').replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return cause.length <= 300 ? cause : `${cause.slice(0, 299)}…`;
}

/** The sentence that says why `work` stopped and what to do, e.g. after the daily cost ceiling. */
export function stopSentence(failure: StopFailure, stopped: StoppedWork): string {
  const { work } = stopped;
  const again = startAgain(stopped);
  const reason = reasonOf(failure);
  const because = reason === '' ? '' : ` (${reason})`;
  switch (stopCauseOf(failure)) {
    case 'cost_ceiling':
      return `:warning: I had to stop this ${work}: ${reason || "the platform reached today's cost ceiling"}. ${again} after the ceiling resets at midnight UTC, or ask an admin to raise the daily ceiling.`;
    case 'budget':
      return `:warning: I had to stop this ${work}: ${reason || 'it used its budget'}. ${again} to start over with a fresh budget.`;
    case 'turn_unfinished':
      return `:warning: I had to stop this ${work}: an agent turn ended without a result${because}. ${again} to start over; if it happens again, tell the people who run this app.`;
    case 'model_unavailable':
      return `:warning: I had to stop this ${work}: the model stayed unavailable through every retry. ${again} in a few minutes.`;
    case 'model_refused':
      return `:warning: I had to stop this ${work}: the model refused its requests${because}. Tell the people who run this app; ${again.charAt(0).toLowerCase()}${again.slice(1)} once they have fixed it.`;
    case 'timed_out':
      return `:warning: I had to stop this ${work}: a step did not finish in time. ${again} to start over.`;
    case 'step_failed':
      return `:warning: I had to stop this ${work}: a step failed (${failure.Error ?? 'unknown error'}). ${again} to start over; if it fails again, tell the people who run this app.`;
  }
}
