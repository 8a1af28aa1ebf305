import type { TaskCompleter } from './approval-wait.ts';
import type { ApprovalNotices, ApprovalStore } from './approvals.ts';
import type { Clock } from './clock.ts';
import type { InboxEnvelope } from './inbox.ts';
import type { SurfaceOutcome } from './inbox-surface.ts';
import type { Conversation, MessageType, SenderType } from './model.ts';
import type { Approvals, PeopleDirectory } from './people.ts';
import type { ConversationStore, Executions, ThreadLink, UnownedOutcome } from './ports.ts';
import type { Retrigger } from './retrigger.ts';
import type { WakeCheck } from './wake.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * The Router's dependencies, additions and outcomes, and what its steps take, in a module of
 * their own: every route (route-message.ts, route-command.ts, route-action.ts,
 * route-external.ts) and every step they write through (route-start.ts, route-store.ts,
 * route-close.ts, route-approval.ts, stop.ts, ended-answer.ts) reads these, and none needs another's code to
 * name them.
 */

/**
 * What the Router reads and writes through: the records, the executions and the clock, and its
 * ports, every one of them present (`routerDefaults` in router-defaults.ts gives the kernel's
 * own for what a deployment does not wire), so no route asks whether one is there.
 */
export interface RouterDeps extends RouterPorts {
  store: ConversationStore;
  executions: Executions;
  clock: Clock;
  workflows: readonly WorkflowRegistration[];
  botUserId: string | undefined;
}

/** Whether a notice reached anyone: a deployment without the function that says it tells no one. */
export type Told = 'told' | 'untold';

/** The Router's ports beyond its records (router-defaults.ts has the kernel's defaults). */
export interface RouterPorts {
  /**
   * Runs the rest of a record's routing as part of the conversation it belongs to, once known:
   * whatever the Router writes then (a refusal, a decided approval's line) is keyed by it.
   */
  inConversation: <T>(conversationId: string, work: () => Promise<T>) => Promise<T>;
  /**
   * The GitHub login the platform acts as with a token (no App): its own comments come back as
   * a user's, and are ignored like the bot's own Slack messages. Undefined with an App, whose
   * comments are a bot's, ignored as such.
   */
  githubLogin: string | undefined;
  /**
   * The configured roles: a sender gets a role the configuration defines (`developer`) only as
   * a member, whatever thread they write in. A directory that configures no role takes the
   * thread's roles as they are.
   */
  people: PeopleDirectory;
  /**
   * Answers a message in the thread of a conversation that has ended: the sender is told the
   * conversation is over and how to start a new one, instead of silence. Untold (no function
   * to post it), the message is ignored with its reason alone.
   */
  endedNotice: (notice: EndedNotice) => Promise<Told>;
  /**
   * Hands a repeated trigger of a running conversation (its issue labelled again) to the
   * workflow's own function, which answers on the issue with where it runs: the Router has no
   * GitHub client and makes no call outside AWS. Untold (no workflow takes them), the repeated
   * trigger is ignored with its reason.
   */
  retriggered: (notice: Retrigger) => Promise<Told>;
  /** What approval button presses are judged with (kernel/route-approval.ts), built when a press comes. */
  approvals: () => Promise<ApprovalDeps>;
  /** Says in the thread who stopped a conversation, and refuses others privately (kernel/stop.ts). */
  stops: StopNotices;
}

type EnvelopeKind = InboxEnvelope['kind'];
type EnvelopeOf<K extends EnvelopeKind> = Extract<InboxEnvelope, { kind: K }>;

/**
 * What a workflow adds to routing: it takes envelopes of one kind that the kernel's own route
 * leaves unrouted (a message no thread and no workflow owns, in a channel no workflow owns;
 * a record of Slack's app surfaces). The Router offers such an envelope to its additions of
 * that kind in their order; one that answers undefined passes it on, and an envelope no
 * addition takes is ignored with the kernel's reason.
 */
export type RouterAddition = {
  readonly [K in EnvelopeKind]: {
    readonly takes: K;
    route(envelope: EnvelopeOf<K>): Promise<RouteOutcome | undefined>;
  };
}[EnvelopeKind];

/** A message for a conversation that has ended, handed to the ended route (ended-answer.ts). */
export interface Ended {
  type: 'ended';
  link: ThreadLink;
  incoming: Incoming;
  conversation: Conversation;
}

/** What a route makes of its envelope: an outcome, an ended conversation's message, or unrouted (for the additions), and why. */
export type Routed = RouteOutcome | Ended | { type: 'unrouted'; reason: string };

/** Why an edit is ignored, as the Slack ingress says it. */
export const EDITED_MESSAGE = 'edited_message';

/** Runs `work` as part of the conversation (`RouterDeps.inConversation`). */
export function partOf<T>(conversationId: string, deps: RouterDeps, work: () => Promise<T>): Promise<T> {
  return deps.inConversation(conversationId, work);
}

/** A short answer in the thread of an ended conversation to someone who wrote there. */
export interface EndedNotice {
  conversationId: string;
  channel: string;
  /** The thread to answer in; absent: a top-level message (an answer to a slash command). */
  threadTs?: string;
  /** The message answered: the notice's idempotency key, so a redelivery answers once. */
  ts: string;
  text: string;
}

/** What the Router did with one inbox record; logged with its reason. */
export type RouteOutcome =
  | { type: 'started'; conversationId: string; workflow: string; execution: 'started' | 'already_started' }
  | {
      type: 'stored';
      conversationId: string;
      senderType: SenderType;
      messageType: MessageType;
      stored: 'stored' | 'duplicate';
      wake: WakeCheck;
    }
  | { type: 'ignored'; reason: string; conversationId?: string }
  | {
      type: 'approval';
      conversationId: string;
      outcome: 'decided' | 'refused';
      detail: string;
      /** The waiting workflow's wake-up: completed, found over (a logged ignore), or none parked. */
      wait?: 'completed' | 'already_ended' | 'none';
    }
  | { type: 'channel'; outcome: UnownedOutcome }
  | SurfaceOutcome;

/** An incoming message of an existing conversation, whatever its source. */
export interface Incoming {
  kind: 'message' | 'action';
  user: string;
  channel: string;
  ts: string;
  text: string;
  receivedAt: string;
  /** Whether the owner's close intent counts here (Slack messages; not buttons, not other sources). */
  closable: boolean;
  actionId?: string;
  actionValue?: string;
  /** The outside item the text is a version of (StoredMessage's `sourceId`). */
  sourceId?: string;
}

/** What the Router needs to take approval presses (kernel/approvals.ts). */
export interface ApprovalDeps {
  /** Who may decide what (`slackAgents.approvals`). */
  rules: Approvals;
  store: ApprovalStore;
  notices: ApprovalNotices;
  /** Completes the task of a workflow waiting for the decision (statemachines/approval-wait.ts). */
  tasks: TaskCompleter;
}

/** What the Router says about a stop (lambdas/handlers/router.ts posts both through Slack). */
export interface StopNotices {
  /** A line in the thread, posted once per stop (keyed by the stop's ts). */
  said(notice: {
    conversationId: string;
    channel: string;
    threadTs: string;
    ts: string;
    text: string;
  }): Promise<void>;
  /** A message only `user` sees. */
  refused(channel: string, user: string, text: string, threadTs?: string): Promise<void>;
}
