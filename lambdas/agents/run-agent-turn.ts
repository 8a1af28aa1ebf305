import { randomUUID } from 'node:crypto';
import type { ContentBlockParam, Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import * as z from 'zod';
import { Redactor } from '../redaction/index.ts';
import { type AgentTurnInput, MODEL_ERROR_FIELD } from './contract.ts';
import { ModelCallError, ModelUnavailableError, ProfileNotFoundError } from './errors.ts';
import {
  type ConversationBudgetStore,
  continuesReason,
  type DailySpendStore,
  isTransientModelFailure,
} from './limit-checks.ts';
import type { AgentLimits } from './limits.ts';
import { type ModelReply, readReply, usageOf } from './model-reply.ts';
import { buildRequest } from './model-request.ts';
import { type AgentTurnDeps, silentLogger } from './ports.ts';
import type { ModelPrice } from './pricing.ts';
import {
  type AgentProfile,
  type ProfileOutput,
  type ProfileRegistry,
  submitToolOf,
  type UnfinishedTurn,
} from './profile.ts';
import { type SpendingDeps, TurnSpending } from './spending.ts';
import {
  acceptSubmission,
  answersToSubmission,
  MAX_SUBMISSION_RETRIES,
  ROUNDS_AFTER_REMINDER,
  remindToSubmit,
  turnHasNudge,
} from './submissions.ts';
import { describe, type ToolCallListener } from './tool-calls.ts';
import { runToolRound } from './tool-round.ts';

/**
 * One agent turn: the model's tool loop over the resumed session, ended by a
 * valid `submit_result`, by the budget (`continue`), or by a failure (the profile's failure
 * action, with the error). The conversation's limits (limits.ts) end it as a failure too, with
 * the reason. Only two things throw: a transcript that cannot be loaded (before any model
 * call), and a model that stayed unavailable (`ModelUnavailableError`), which the state
 * machine retries minutes apart before its Catch ends the conversation.
 */

/** What the model reads, in the saved transcript, where a turn ended without its result. */
const OUT_OF_BUDGET_NOTE = '[runtime] This turn ran out of its budget before you submitted a result';
export const FAILED_TURN_NOTE = '[runtime] This turn ended without a result';

type RunAgentTurnDeps<R extends ProfileRegistry = ProfileRegistry> = AgentTurnDeps & {
  /** The roles this function serves (its workflow's). */
  profiles: R;
  /** The conversation's bounds. @default - only the turn's own budget */
  limits?: AgentLimits;
  /** What the conversation spent; with `limits`, a conversation over them runs no model call. */
  conversationBudget?: ConversationBudgetStore;
  /** The platform's spend per UTC day; with `limits.maxDailyCostUsd`, no call runs past it. */
  dailySpend?: DailySpendStore;
  /** The price of `modelId`: each call's estimated cost goes to the ledger and the day's spend. */
  price?: ModelPrice;
  /** Where each call's worst case is reserved before it runs (reservations.ts). @default - not reserved */
  reservations?: NonNullable<SpendingDeps['reservations']>;
  /** A workflow's tighter ceiling for the conversation (the issue pipeline's). */
  conversationCeiling?: NonNullable<SpendingDeps['conversationCeiling']>;
  /** Told of each tool call as it starts and ends (live progress). @default - nobody */
  toolCalls?: ToolCallListener;
  /**
   * Whether people stopped the conversation meanwhile (`stop`, the Stop button, "never mind"):
   * asked before every model call and before a submitted result is handed back, so a stopped
   * turn ends at once and its answer is never posted (stop-turn.ts).
   * @default - never stopped
   */
  stopRequested?: () => Promise<boolean>;
};

/**
 * A stopped turn ends as one out of time: the workflow's `continue` takes it to its next Drain,
 * which finds the close requested and closes the conversation, posting nothing of the turn.
 */
const STOPPED_REASON = 'stopped by a person in the thread';
const stopped = async (deps: { stopRequested?: () => Promise<boolean> }) =>
  (await deps.stopRequested?.().catch(() => false)) === true;

/**
 * Runs a turn of the profile the input names; the output is that profile's.
 * @throws ProfileNotFoundError when the registry has no such profile (a wiring error).
 */
export async function runAgentTurn<R extends ProfileRegistry, P extends keyof R & string>(
  input: AgentTurnInput & { profile: P },
  deps: RunAgentTurnDeps<R>,
): Promise<ProfileOutput<R, P>> {
  const profile = deps.profiles[input.profile] as AgentProfile<unknown, ProfileOutput<R, P>> | undefined;
  if (profile === undefined) throw new ProfileNotFoundError(input.profile, Object.keys(deps.profiles));
  return runTurn(profile, input, deps);
}

async function runTurn<Result, Output>(
  profile: AgentProfile<Result, Output>,
  input: AgentTurnInput,
  deps: RunAgentTurnDeps,
): Promise<Output> {
  const log = deps.logger ?? silentLogger;
  const { conversationId } = input;
  const sessionId = input.sessionId ?? (deps.newSessionId ?? randomUUID)();
  if (input.mode === 'continuation' && input.sessionId === undefined) {
    log.warn('continuation turn without a session: starting a new one', { turn: input.turn });
  }
  // The prompt carries people's messages, issue bodies and alert payloads; tool results are
  // redacted in callTool. What the model never read, it cannot quote. What is replaced is
  // counted in the conversation's ledger by the invocation's tally (lambdas/redaction/tally.ts).
  const redactor = new Redactor(conversationId, deps.redaction, conversationId);
  // Independent of each other, so they go out together: the first model call waits on one round trip.
  const [history, prompt, spending] = await Promise.all([
    input.sessionId ? deps.transcripts.load(conversationId, input.sessionId, { beforeTurn: input.turn }) : [],
    redactor.redact(profile.prompt(input)),
    TurnSpending.start(conversationId, deps),
  ]);
  const turn: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: prompt.text }] }];
  const toolNames = new Set(profile.tools.map((tool) => tool.name));
  const submitTool = submitToolOf(profile);
  const stats = { modelCalls: 0, toolCalls: 0, invalidSubmissions: 0, rounds: 0 };
  let progress: string | undefined;
  const limits = deps.limits;
  const spend = spending.conversation;

  const remainingMs = () => deps.budget.deadlineMs - deps.clock.now().getTime();

  const end = async (output: Output): Promise<Output> => {
    const checked = profile.outputSchema.safeParse(output);
    if (!checked.success)
      log.error('the turn output does not match its schema', { issues: checked.error.issues });
    const final = checked.success
      ? checked.data
      : profile.outputSchema.parse(
          profile.unfinished(
            {
              kind: 'failed',
              error: `the turn's output was invalid: ${z.prettifyError(checked.error)}`,
              progress,
            },
            sessionId,
          ),
        );
    // A failed save costs the next turn this turn's transcript, not this turn's result:
    // the history tool still has every Slack message, and re-running the turn would repeat its tool calls.
    await deps.transcripts
      .save(conversationId, sessionId, input.turn, turn)
      .catch((error: unknown) => log.error('could not save the transcript', { error, sessionId }));
    return final;
  };
  const unfinished = async (how: UnfinishedTurn) => {
    if (how.kind === 'out_of_budget' && limits && spend) {
      // Counted before the output is chosen, so a retried turn cannot slip past the bound.
      if (spend.consecutiveContinues + 1 >= limits.maxConsecutiveContinues) {
        how = {
          kind: 'failed',
          error: continuesReason(limits.maxConsecutiveContinues),
          progress,
          limit: true,
        };
      }
    }
    await recordEnd(how.kind === 'out_of_budget');
    log[how.kind === 'failed' ? 'error' : 'info']('turn ended without a result', { ...how, ...stats });
    // Tell the next turn of the session where and why this one stopped.
    const note =
      how.kind === 'out_of_budget'
        ? `${OUT_OF_BUDGET_NOTE} (${how.reason}); you go on in the next turn.`
        : `${FAILED_TURN_NOTE}: ${how.error}.`;
    const last = turn.at(-1);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push({ type: 'text', text: note });
    else turn.push({ role: 'user', content: [{ type: 'text', text: note }] });
    const output = await end(profile.unfinished(how, sessionId));
    // Whatever the workflow, a refusal is marked the same way: its state machine ends on it.
    return how.kind === 'failed' && how.model
      ? { ...output, [MODEL_ERROR_FIELD]: how.error.slice(0, 2_000) }
      : output;
  };

  const recordEnd = (continued: boolean) =>
    deps.conversationBudget
      ?.recordTurnEnd(conversationId, input.turn, continued)
      .catch((error: unknown) => log.warn('could not record how the turn ended', { error }));
  const failedCall = async (error: unknown): Promise<Output> => {
    // The deadline's abort lands here too: that is the budget running out, not a failure.
    if (remainingMs() <= 0 || (error instanceof ModelCallError && error.details.aborted)) {
      return unfinished({
        kind: 'out_of_budget',
        reason: 'time budget ran out during a model call',
        progress,
      });
    }
    if (error instanceof ModelCallError && isTransientModelFailure(error.details)) {
      // Not saved: the retried turn starts again from the turns before it.
      log.warn('the model is unavailable: the state machine retries the turn', { ...stats });
      // The API's answer is the sentence (`the model API answered HTTP 529 ...`): one name, the turn's.
      throw new ModelUnavailableError(error.message, { cause: error });
    }
    // A refusal's error is the API's answer alone: the workflow names it `ModelCallError`.
    if (error instanceof ModelCallError)
      return unfinished({ kind: 'failed', error: error.message, progress, model: true });
    return unfinished({ kind: 'failed', error: describe(error), progress });
  };

  for (;;) {
    if (remainingMs() <= 0) return unfinished({ kind: 'out_of_budget', reason: 'time budget', progress });
    // Checked before every call: the conversation's bounds and the platform's daily ceiling.
    const stop = spending.overLimit();
    if (stop !== undefined) {
      if (await stopped(deps)) return unfinished({ kind: 'out_of_budget', reason: STOPPED_REASON, progress });
      return unfinished({ kind: 'failed', error: stop, progress, limit: true });
    }

    const request = buildRequest({ modelId: deps.modelId, profile, history, turn });
    // Held before the call, atomically: racing turns cannot all spend the same remainder. The
    // stop is asked meanwhile, in the same round trip; a stopped turn gives the hold back.
    const [isStopped, reserved] = await Promise.all([stopped(deps), spending.reserve(request)]);
    if (isStopped) {
      if (reserved.granted) await spending.release(reserved.hold);
      return unfinished({ kind: 'out_of_budget', reason: STOPPED_REASON, progress });
    }
    if (!reserved.granted)
      return unfinished({ kind: 'failed', error: reserved.reason, progress, limit: true });
    let reply: ModelReply;
    let message: Message;
    try {
      message = await deps.model.createMessage(request, {
        signal: AbortSignal.timeout(Math.max(1, remainingMs())),
      });
    } catch (error) {
      await spending.release(reserved.hold);
      return failedCall(error);
    }
    try {
      stats.modelCalls += 1;
      // The day's counter and the conversation's ledger are separate items: written side by side
      // (the ledger in the settle of the call's reservation, when that is on the conversation).
      const { delta, recorded, ledgerRecorded } = spending.record(usageOf(message), reserved.hold);
      await Promise.all([
        recorded,
        ledgerRecorded
          ? undefined
          : deps
              .ledger(conversationId, delta)
              .catch((error: unknown) => log.warn('could not add token usage to the ledger', { error })),
      ]);
      reply = readReply(message);
    } catch (error) {
      return failedCall(error);
    }
    stats.rounds += 1;

    if (reply.blocks.length > 0) turn.push({ role: 'assistant', content: reply.blocks });
    if (reply.text !== undefined) progress = reply.text.slice(0, 2_000);
    if (reply.toolUses.length === 0) {
      if (reply.stopReason === 'refusal')
        return unfinished({ kind: 'failed', error: 'the model refused to continue', progress });
      const why = `the model answered without calling a tool (stop_reason ${reply.stopReason ?? 'none'})`;
      // Once, the model is reminded; a second plain answer in the turn ends it.
      if (turnHasNudge(turn, submitTool)) return unfinished({ kind: 'failed', error: why, progress });
      const content: ContentBlockParam[] = [];
      remindToSubmit(content, submitTool);
      turn.push({ role: 'user', content });
      continue;
    }

    // A valid submission ends the turn; the reply's other calls are answered, not run.
    const accepted = acceptSubmission(profile, input, reply.toolUses);
    if (accepted) {
      turn.push({ role: 'user', content: answersToSubmission(reply.toolUses, accepted.use) });
      // Stopped while the model answered: the answer is dropped, and the workflow closes.
      if (await stopped(deps)) return unfinished({ kind: 'out_of_budget', reason: STOPPED_REASON, progress });
      log.info('turn submitted its result', { ...stats });
      // The streak's record and the transcript are separate items: written side by side.
      const [, output] = await Promise.all([
        recordEnd(false),
        end(profile.output(accepted.result, sessionId)),
      ]);
      return output;
    }

    const { results, submissionError, outOfBudget } = await runToolRound(reply.toolUses, {
      profile,
      input,
      toolNames,
      stats,
      remainingMs,
      deps: { ...deps, redactor },
      log,
    });
    if (submissionError !== undefined) stats.invalidSubmissions += 1;
    if (limits && outOfBudget === undefined) {
      if (stats.rounds >= limits.maxToolRounds + ROUNDS_AFTER_REMINDER) {
        turn.push({ role: 'user', content: results });
        return unfinished({
          kind: 'failed',
          error: `the model did not submit a result after ${stats.rounds} tool rounds and a reminder`,
          progress,
        });
      }
      if (stats.rounds === limits.maxToolRounds) remindToSubmit(results, submitTool);
    }

    turn.push({ role: 'user', content: results });
    if (outOfBudget !== undefined)
      return unfinished({ kind: 'out_of_budget', reason: outOfBudget, progress });
    if (submissionError !== undefined && stats.invalidSubmissions > MAX_SUBMISSION_RETRIES) {
      return unfinished({
        kind: 'failed',
        error: `the model's result was invalid ${stats.invalidSubmissions} times: ${submissionError}`,
        progress,
      });
    }
  }
}
