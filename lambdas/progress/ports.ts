import type { AgentLogger } from '../agents/ports.ts';
import type { SlackPostOutput } from '../kernel/slack-post-output.ts';
import type { ProgressChunk, TimelinePlan, TimelineTask } from './timeline.ts';

/** The Slack calls live progress makes; `lambdas/slack/progress-client.ts` puts @slack/web-api behind it. */
export interface ProgressSlack {
  startStream(args: {
    channel: string;
    threadTs: string;
    chunks: ProgressChunk[];
    taskDisplayMode: 'timeline' | 'plan';
    recipientUserId?: string;
    recipientTeamId?: string;
  }): Promise<{ ts: string }>;
  appendStream(args: { channel: string; ts: string; chunks: ProgressChunk[] }): Promise<void>;
  stopStream(args: { channel: string; ts: string; chunks?: ProgressChunk[] }): Promise<void>;
  /** `chat.postMessage` with the post key in its metadata, so a retry can find it again. */
  postMessage(args: {
    channel: string;
    threadTs: string;
    text: string;
    blocks: Record<string, unknown>[];
    postKey: string;
  }): Promise<{ ts: string }>;
  findPost(args: { channel: string; threadTs: string; postKey: string }): Promise<{ ts: string } | undefined>;
  updateMessage(args: {
    channel: string;
    ts: string;
    text: string;
    blocks: Record<string, unknown>[];
  }): Promise<void>;
  /** `chat.delete` of one of the bot's messages (a timeline an answer took the place of). */
  deleteMessage(args: { channel: string; ts: string }): Promise<void>;
  /** `assistant.threads.setStatus`; an empty status clears it. */
  setStatus(args: {
    channel: string;
    threadTs: string;
    status: string;
    loadingMessages?: string[];
  }): Promise<void>;
  /** The workspace's team id (a stream outside a DM names its recipient's team). */
  teamId(): Promise<string | undefined>;
}

/** Slack's refusal of a call, with its error code (`message_not_in_streaming_state`...). */
export interface ProgressSlackRefusal {
  slackError?: string;
}

/** How the progress of a conversation's open turn is shown, kept with the conversation. */
export interface ProgressRecord {
  /** The post ledger key of its message (`progress:<turn that started it>`). */
  key: string;
  channel: string;
  threadTs: string;
  ts: string;
  kind: 'stream' | 'message';
  /** Whether a turn is still adding to it (a turn that continues in the next invocation). */
  open: boolean;
  tasks: TimelineTask[];
  plan?: TimelinePlan;
  startedAt: string;
  /**
   * The closing line of a turn that ended with its work done (`Done: 2 steps in 5 s`): the
   * workflow's next post in the thread is its answer, which takes its place. Absent while it is
   * open, and for a turn that was stopped or did not finish (its timeline stays).
   */
  closing?: string;
  /**
   * The ts of the post that took its place in the thread (its message deleted, its summary
   * above that post: lambdas/progress/replaced-timeline.ts); absent while it is shown.
   */
  replacedBy?: string;
  /** How many conditional saves it has had (`saveAt`); absent before the first. */
  revision?: number;
}

/** A conversation's timeline as read, none (`undefined`) included. */
export interface TimelineAsRead {
  readonly record: ProgressRecord | undefined;
}

export interface ProgressStore {
  load(conversationId: string): Promise<ProgressRecord | undefined>;
  save(conversationId: string, record: ProgressRecord): Promise<void>;
  /**
   * Saves `record` (its `revision` one past `revision`) only if the stored record is still at
   * `revision` (0: none yet): `false` when another write came first. A round's turns that run
   * at once save their shared timeline this way, so none takes back another's tasks.
   */
  saveAt(conversationId: string, record: ProgressRecord, revision: number): Promise<boolean>;
}

/** Where a turn's progress goes and who reads it. */
export interface ProgressTarget {
  conversationId: string;
  turn: number;
  channel: string;
  threadTs: string;
  /** The person the turn answers (a stream outside a DM needs one). */
  recipientUserId?: string;
  /** A DM with the app: its status is set (`assistant.threads.setStatus`). */
  assistantThread: boolean;
}

export type ProgressLogger = AgentLogger;

/** The post ledger's part live progress uses (lambdas/slack/post-to-slack.ts `PostLedger`). */
export interface ProgressLedger {
  find(conversationId: string, key: string): Promise<SlackPostOutput | undefined>;
  record(conversationId: string, key: string, output: SlackPostOutput): Promise<void>;
  attempt?(conversationId: string, key: string): Promise<{ earlier: boolean; firstAttemptAt: string }>;
}
