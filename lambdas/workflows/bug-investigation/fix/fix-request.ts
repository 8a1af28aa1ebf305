import { isSlackThread } from '../../../kernel/anchors.ts';
import { APPROVAL_ACTION_ID, parseApprovalButton } from '../../../kernel/approvals.ts';
import type { DrainedMessage } from '../../../kernel/drained-message.ts';
import type { Conversation, StoredMessage } from '../../../kernel/model.ts';
import type { FixRequestCheck, FixRequestCheckInput } from './contract.ts';
import { bugWorkBranch } from './work-branch.ts';

/**
 * Who may have a fix made: the code's check, not the model's. A fix rests on one person's own
 * act, never on the turn as a whole:
 * - a developer pressed "Fix it" on the findings (an approval like any other: the Router took
 *   the press only from a holder of the `request_fix` roles, on the button open now, once, and
 *   recorded the decision), or
 * - the investigator cites, as `fix_request`, the id of one message whose sender the code finds
 *   to be a developer, a message of this conversation delivered to this turn or an earlier one.
 * Anyone else's request, and any other message of the turn, lends no authority: a third party's
 * "please fix it" beside a developer's "thanks" is refused, and the thread is told why.
 * A request starts at most one fix: the check records it as used by its turn, and a later turn
 * citing it again is refused (after a fix the investigation goes on, and an old request must not
 * start another round on the same branch and pull request).
 */

/** The decision kind of the findings' "Fix it" button (`slackAgents.approvals.request_fix`). */
export const REQUEST_FIX = 'request_fix';
/** The decision the "Fix it" button stands for. */
export const FIX_DECISION = 'fix';

/** The role whose holders may ask for a fix. */
export const FIX_REQUEST_ROLE = 'developer';

/**
 * A message from a developer, as the Router labelled it (its role comes from the thread's anchor,
 * and a configured role only from membership). Kept for the profile's quick look at a turn's
 * messages; the check below asks the configuration again.
 */
export function isDeveloper(message: Pick<DrainedMessage, 'senderType' | 'senderId'>): boolean {
  return message.senderType === FIX_REQUEST_ROLE;
}

/** Whether a message is a press of the findings' "Fix it" button, as the Router delivers one. */
export function isFixItPress(
  message: Pick<StoredMessage, 'messageType' | 'actionId' | 'actionValue'>,
): boolean {
  if (message.messageType !== 'action' || message.actionId !== APPROVAL_ACTION_ID) return false;
  const value = parseApprovalButton(message.actionValue);
  return value?.kind === REQUEST_FIX && value.decision === FIX_DECISION;
}

export interface FixRequestDeps {
  /** The conversation (its decisions, its threads), read consistently. */
  conversation: () => Promise<Conversation | undefined>;
  /** Every stored message of the conversation. */
  messages: () => Promise<readonly StoredMessage[]>;
  /**
   * Whether the user holds the developer role by the configuration (`slackAgents.people`);
   * undefined when the configuration defines no such role (then the Router's label is the fact).
   */
  holdsDeveloperRole: (userId: string) => Promise<boolean | undefined>;
  /**
   * Records, in one conditional write, that the check of `turn` starts a fix on `request` (its
   * id): `used_before` when another turn's check already did.
   */
  useRequest: (request: string, turn: number) => Promise<FixRequestUse>;
}

/** What became of recording a request as the start of a fix. */
export type FixRequestUse = 'recorded' | 'used_before';

type Verdict = { allowed: true; requestedBy: string; reason: string } | { allowed: false; reason: string };

/** The check, with the thread to tell when it refuses. */
export async function checkFixRequest(
  input: FixRequestCheckInput,
  deps: FixRequestDeps,
): Promise<FixRequestCheck> {
  const workBranch = bugWorkBranch(input.conversationId);
  const fixRequest = input.fixRequest ?? input.result?.fixRequest;
  input = { ...input, ...(fixRequest === undefined ? {} : { fixRequest }) };
  const [conversation, messages] = await Promise.all([deps.conversation(), deps.messages()]);
  const cited = input.fixRequest ? messages.find((m) => m.ts === input.fixRequest) : undefined;
  const judged = await judge(input, cited, conversation, deps);
  const verdict =
    judged.allowed && cited !== undefined ? await useOnce(cited, input.turn, judged, deps) : judged;
  if (verdict.allowed) return { workBranch, ...verdict };
  return { workBranch, ...verdict, notice: noticeThread(cited, conversation) };
}

async function judge(
  input: FixRequestCheckInput,
  cited: StoredMessage | undefined,
  conversation: Conversation | undefined,
  deps: FixRequestDeps,
): Promise<Verdict> {
  if (input.fixRequest === undefined) {
    return {
      allowed: false,
      reason:
        'No fix was started: the request cites no message. A fix starts from a developer pressing "Fix it" on the findings, or from a developer\'s own message asking for it.',
    };
  }
  if (cited === undefined) {
    return {
      allowed: false,
      reason: `No fix was started: the cited request (${input.fixRequest}) is not a message of this conversation.`,
    };
  }
  if (cited.deliveredInTurn === undefined || cited.deliveredInTurn > input.turn) {
    return {
      allowed: false,
      reason: `No fix was started: the cited request (${cited.ts}) had not reached the investigation yet.`,
    };
  }
  if (isFixItPress(cited)) return judgePress(cited, conversation);
  if (cited.messageType !== 'message') {
    return {
      allowed: false,
      reason: `No fix was started: the cited request (${cited.ts}) is not a person's message.`,
    };
  }
  // The configuration decides when it defines the role; otherwise the Router's label does.
  const configured = await deps.holdsDeveloperRole(cited.senderId);
  if (!(configured ?? cited.senderType === FIX_REQUEST_ROLE)) {
    return {
      allowed: false,
      reason: `Only developers can ask for a fix; <@${cited.senderId}> is not one, so no fix was started. A developer can press "Fix it" on the findings or ask in the findings thread.`,
    };
  }
  return { allowed: true, requestedBy: cited.senderId, reason: `<@${cited.senderId}> asked for a fix.` };
}

/**
 * An allowed request is recorded as used by this turn, last, so that a refused one stays unused.
 * The same turn is let through again: a task retried after its write (a Lambda's or the state
 * machine's retry) would otherwise refuse the fix its first attempt allowed; a later turn cannot.
 */
async function useOnce(
  cited: StoredMessage,
  turn: number,
  allowed: Verdict,
  deps: FixRequestDeps,
): Promise<Verdict> {
  if ((await deps.useRequest(cited.ts, turn)) === 'recorded') return allowed;
  return {
    allowed: false,
    reason: `No fix was started: the request ${cited.ts} already started a fix, and a request starts only one. For another fix, a developer asks again in the findings thread.`,
  };
}

/** A press counts only as the decision the Router recorded for it (who, which press). */
function judgePress(press: StoredMessage, conversation: Conversation | undefined): Verdict {
  const decision = (conversation?.decisions ?? []).find(
    (d) =>
      d.kind === REQUEST_FIX &&
      d.decision === FIX_DECISION &&
      d.pressTs === press.ts &&
      d.by === press.senderId,
  );
  if (decision === undefined) {
    return {
      allowed: false,
      reason: `No fix was started: no recorded "Fix it" decision matches the press ${press.ts}.`,
    };
  }
  return {
    allowed: true,
    requestedBy: decision.by,
    reason: `<@${decision.by}> pressed "Fix it" at ${decision.at}.`,
  };
}

/** Where a refusal is told: the cited message's thread, else the findings thread, else the reporter's. */
function noticeThread(
  cited: StoredMessage | undefined,
  conversation: Conversation | undefined,
): { channel: string; threadTs: string } | undefined {
  if (cited?.threadTs !== undefined && isSlackThread({ channel: cited.channel, threadTs: cited.threadTs })) {
    return { channel: cited.channel, threadTs: cited.threadTs };
  }
  const anchors = Object.values(conversation?.anchors ?? {});
  const anchor = anchors.find((a) => a.name === 'summary') ?? anchors.find((a) => a.name === 'origin');
  return anchor === undefined ? undefined : { channel: anchor.channel, threadTs: anchor.threadTs };
}
