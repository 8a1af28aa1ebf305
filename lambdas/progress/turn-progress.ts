import type { SlackPostOutput } from '../kernel/tasks.ts';
import { type RedactionCounts, redactionNote } from '../redaction/index.ts';
import { closedPlan, closingLine, type TurnEnd } from './closing.ts';
import { Coalescer, type CoalescerOptions } from './coalescer.ts';
import { taskOutcome } from './outcomes.ts';
import type {
  ProgressLogger,
  ProgressRecord,
  ProgressSlack,
  ProgressSlackRefusal,
  ProgressStore,
  ProgressTarget,
} from './ports.ts';
import {
  closedStreamBlocks,
  mergeChunks,
  type ProgressChunk,
  stopBlock,
  type TimelinePlan,
  type TimelineTask,
  taskChunk,
  timelineBlocks,
  timelineText,
  upsertTask,
} from './timeline.ts';
import { taskTitle } from './titles.ts';

/** The post ledger's part used here (lambdas/slack/post-to-slack.ts `PostLedger`). */
export interface ProgressLedger {
  find(conversationId: string, key: string): Promise<SlackPostOutput | undefined>;
  record(conversationId: string, key: string, output: SlackPostOutput): Promise<void>;
  attempt?(conversationId: string, key: string): Promise<{ earlier: boolean; firstAttemptAt: string }>;
}

export interface TurnProgressDeps {
  slack: ProgressSlack;
  store: ProgressStore;
  posts: ProgressLedger;
  clock: { now(): Date };
  logger: ProgressLogger;
  /** How Slack calls are paced per message. @default one per second */
  pacing?: CoalescerOptions;
}

export type { TurnEnd } from './closing.ts';

/** Slack's refusals that mean the stream is over: the message is updated in place from then on. */
const STREAM_OVER = new Set([
  'message_not_in_streaming_state',
  'streaming_state_conflict',
  'message_not_found',
]);

/** What an assistant thread shows while the turn works. */
export const LOADING_MESSAGES = ['Reading the thread…', 'Looking into it…', 'Checking the details…'];

const HEADING = 'Working on it';

/**
 * One turn's live progress in Slack. Where a stream can be used (a DM with the app, or a
 * thread with a person to address it to), one streamed message with a task per tool call;
 * elsewhere (alert- and GitHub-started threads, or a refused stream) one message updated in
 * place. A turn that continues in the next invocation continues the same message (its record
 * stays open); a retried turn finds it by the record or the post ledger. Every call is paced
 * by a `Coalescer`, and no failure here reaches the turn: each is logged and the turn goes on.
 */
export class TurnProgress {
  private readonly pacer: Coalescer;
  private record: ProgressRecord | undefined;
  private disabled = false;
  private pending: ProgressChunk[] = [];
  private ending: TurnEnd | undefined;
  private readonly startedAt: number;
  /** Epoch ms when the first Slack call of this turn was answered (its first sign of life). */
  firstSignAt: number | undefined;
  /** Slack calls made. */
  slackCalls = 0;

  constructor(
    private readonly target: ProgressTarget,
    private readonly deps: TurnProgressDeps,
    private plan: TimelinePlan | undefined = undefined,
  ) {
    this.startedAt = deps.clock.now().getTime();
    this.pacer = new Coalescer(() => this.flush(), deps.pacing);
  }

  /** Shows the turn has begun: the assistant thread's status (the message comes with the first task). */
  begin(): void {
    if (this.target.assistantThread) {
      void this.call('setStatus', () =>
        this.deps.slack.setStatus({
          channel: this.target.channel,
          threadTs: this.target.threadTs,
          status: 'is working on it…',
          loadingMessages: LOADING_MESSAGES,
        }),
      );
    }
    // No flush here: it would post nothing and take the pacing slot the first task needs.
  }

  toolStarted(use: { id: string; name: string; input: unknown }): void {
    this.task({ id: use.id, title: taskTitle(use.name, use.input), status: 'in_progress' });
  }

  toolFinished(
    use: { id: string; name: string; input: unknown },
    result: { output: string; failed: boolean; redacted?: RedactionCounts },
  ): void {
    this.task({
      id: use.id,
      title: taskTitle(use.name, use.input),
      status: result.failed ? 'error' : 'complete',
      output: taskOutcome(use.name, use.input, result.output, result.failed) + redactionNote(result.redacted),
    });
  }

  /** Replaces the plan (a workflow's stages, an incident's hypotheses). */
  setPlan(plan: TimelinePlan): void {
    this.plan = plan;
    this.pending.push({ type: 'plan_update', title: plan.title }, ...plan.steps.map(taskChunk));
    this.pacer.request();
  }

  /** Ends this invocation's part: the last updates, then the stream's stop (unless the turn continues). */
  async finish(end: TurnEnd): Promise<void> {
    const closed = this.plan && closedPlan(this.plan, end);
    if (closed) {
      this.plan = closed;
      this.pending.push(...closed.steps.map(taskChunk));
    }
    this.ending = end;
    this.pacer.request();
    await this.pacer.settled();
    if (this.target.assistantThread && end.kind !== 'continues') {
      await this.call('setStatus', () =>
        this.deps.slack.setStatus({
          channel: this.target.channel,
          threadTs: this.target.threadTs,
          status: '',
        }),
      );
    }
  }

  /** Tasks noted before the message exists. */
  private early: TimelineTask[] = [];

  private task(task: TimelineTask): void {
    if (this.record) this.record.tasks = upsertTask(this.record.tasks, task);
    else this.early = upsertTask(this.early, task);
    this.pending.push(taskChunk(task));
    this.pacer.request();
  }

  private async flush(): Promise<void> {
    if (this.disabled) return;
    if (!this.record) {
      // No timeline for a turn without tool calls, unless it ends one an earlier invocation began.
      const ends = this.ending !== undefined && this.ending.kind !== 'continues';
      if (this.early.length > 0 || ends) await this.start();
      // A turn that ended while its message was being started: the close is the next call.
      if (this.record && this.ending !== undefined) this.pacer.request();
      return;
    }
    const record = this.record;
    const ending = this.ending;
    const chunks = mergeChunks(this.pending.splice(0));
    if (record.kind === 'stream') {
      const closing =
        ending && ending.kind !== 'continues'
          ? [{ type: 'markdown_text' as const, text: this.closingLine(ending) }]
          : [];
      const all = [...chunks, ...closing];
      const done =
        ending === undefined || ending.kind === 'continues'
          ? all.length === 0 ||
            (await this.call('appendStream', () =>
              this.deps.slack.appendStream({ channel: record.channel, ts: record.ts, chunks: all }),
            ))
          : await this.call('stopStream', () =>
              this.deps.slack.stopStream({ channel: record.channel, ts: record.ts, chunks: all }),
            );
      if (done === 'over') {
        // The stream ended on Slack's side (it closes idle streams): the same message, updated in place.
        record.kind = 'message';
        await this.update(record, ending);
      } else if (done === true && ending !== undefined && ending.kind !== 'continues') {
        // A stream cannot take back its Stop button: the stopped stream's message is rewritten
        // as what it showed, without it.
        await this.call('chat.update', () =>
          this.deps.slack.updateMessage({
            channel: record.channel,
            ts: record.ts,
            text: this.closingLine(ending),
            blocks: closedStreamBlocks({
              heading: `${HEADING}…`,
              tasks: record.tasks,
              plan: this.plan,
              closing: this.closingLine(ending),
            }),
          }),
        );
      }
    } else if (chunks.length > 0 || ending !== undefined) {
      await this.update(record, ending);
    }
    if (ending !== undefined) {
      record.open = ending.kind === 'continues';
      await this.save(record);
    }
  }

  private update(record: ProgressRecord, ending: TurnEnd | undefined) {
    const running = ending === undefined || ending.kind === 'continues';
    const footer = running ? undefined : this.closingLine(ending);
    return this.call('chat.update', () =>
      this.deps.slack.updateMessage({
        channel: record.channel,
        ts: record.ts,
        text: timelineText(HEADING, record.tasks),
        blocks: timelineBlocks({
          heading: HEADING,
          tasks: record.tasks,
          plan: this.plan,
          conversationId: this.target.conversationId,
          running,
          footer,
        }),
      }),
    );
  }

  /** Finds the message an earlier invocation of this turn (or of the turn it continues) began, or posts it. */
  private async start(): Promise<void> {
    const { conversationId, channel, threadTs, turn } = this.target;
    // What is pending now goes with the post; what comes while it is made, in the next call
    // (the plan too: a turn that ends meanwhile sends its closed plan after the post).
    const sent = this.pending.length;
    const plan = this.plan;
    try {
      const earlier = await this.deps.store.load(conversationId);
      if (earlier?.open && earlier.channel === channel && earlier.threadTs === threadTs) {
        this.adopt(earlier);
        // The tasks noted so far are still pending: the first append carries them.
        await this.flush();
        return;
      }
      // Nothing to show yet (a turn ending without tool calls): nothing is posted.
      if (this.early.length === 0) return;
      const key = `progress:${turn}`;
      const found = await this.findEarlierPost(key);
      const record: ProgressRecord = found
        ? {
            key,
            channel,
            threadTs,
            ts: found.ts,
            kind: 'message',
            open: true,
            tasks: [],
            startedAt: new Date(this.startedAt).toISOString(),
          }
        : await this.post(key, plan);
      this.adopt(record);
      this.pending = this.pending.slice(sent);
      await this.save(record);
      await this.deps.posts.record(conversationId, key, { channel, ts: record.ts, threadTs });
      if (found) await this.update(record, this.ending);
    } catch (error) {
      // Progress is a courtesy: the turn goes on without it in this invocation.
      this.disabled = true;
      this.deps.logger.warn('live progress is off for this turn: could not start it', { error });
    }
  }

  private async findEarlierPost(key: string): Promise<{ ts: string } | undefined> {
    const { conversationId, channel, threadTs } = this.target;
    const recorded = await this.deps.posts.find(conversationId, key);
    if (recorded) return recorded;
    const attempt = await this.deps.posts.attempt?.(conversationId, key);
    return attempt?.earlier ? this.deps.slack.findPost({ channel, threadTs, postKey: key }) : undefined;
  }

  /** A stream where one can be used, else a message; a refused stream falls back to the message. */
  private async post(key: string, plan: TimelinePlan | undefined): Promise<ProgressRecord> {
    const { channel, threadTs, conversationId } = this.target;
    const base = {
      key,
      channel,
      threadTs,
      open: true,
      tasks: this.early,
      ...(this.plan ? { plan: this.plan } : {}),
      startedAt: new Date(this.startedAt).toISOString(),
    };
    const recipient = await this.recipient();
    if (recipient !== undefined) {
      try {
        const planChunks: ProgressChunk[] = plan
          ? [{ type: 'plan_update', title: plan.title }, ...plan.steps.map(taskChunk)]
          : [];
        const { ts } = await this.counted(() =>
          this.deps.slack.startStream({
            channel,
            threadTs,
            taskDisplayMode: plan ? 'plan' : 'timeline',
            ...recipient,
            chunks: [
              { type: 'markdown_text', text: `${HEADING}…` },
              { type: 'blocks', blocks: [stopBlock(conversationId)] },
              ...planChunks,
              ...this.early.map(taskChunk),
            ],
          }),
        );
        return { ...base, ts, kind: 'stream' };
      } catch (error) {
        if (refusalOf(error) === undefined) throw error;
        this.deps.logger.warn('Slack refused the stream: the progress is one message updated in place', {
          error,
        });
      }
    }
    const blocks = timelineBlocks({
      heading: HEADING,
      tasks: this.early,
      plan: this.plan,
      conversationId,
      running: true,
    });
    const { ts } = await this.counted(() =>
      this.deps.slack.postMessage({
        channel,
        threadTs,
        text: timelineText(HEADING, this.early),
        blocks,
        postKey: key,
      }),
    );
    return { ...base, ts, kind: 'message' };
  }

  /**
   * Who the stream is for: nobody needed in a DM with the app; elsewhere the person the turn
   * answers and the workspace. Undefined when a stream cannot be addressed (no person).
   */
  private async recipient(): Promise<{ recipientUserId?: string; recipientTeamId?: string } | undefined> {
    if (this.target.assistantThread) return {};
    if (this.target.recipientUserId === undefined) return undefined;
    const team = await this.deps.slack.teamId().catch(() => undefined);
    return team === undefined
      ? undefined
      : { recipientUserId: this.target.recipientUserId, recipientTeamId: team };
  }

  private adopt(record: ProgressRecord): void {
    for (const task of this.early) record.tasks = upsertTask(record.tasks, task);
    this.record = record;
    if (record.plan && !this.plan) this.plan = record.plan;
  }

  private closingLine(end: TurnEnd): string {
    const startedAt = this.record ? Date.parse(this.record.startedAt) : this.startedAt;
    return closingLine(end, this.record?.tasks.length ?? 0, this.deps.clock.now().getTime() - startedAt);
  }

  private async save(record: ProgressRecord): Promise<void> {
    await this.deps.store
      .save(this.target.conversationId, { ...record, ...(this.plan ? { plan: this.plan } : {}) })
      .catch((error: unknown) => this.deps.logger.warn('could not save the progress record', { error }));
  }

  private async counted<T>(run: () => Promise<T>): Promise<T> {
    this.slackCalls += 1;
    const result = await run();
    this.firstSignAt ??= this.deps.clock.now().getTime();
    return result;
  }

  /** Runs a call; a failure is logged. `'over'` when Slack says the stream has ended. */
  private async call(method: string, run: () => Promise<void>): Promise<true | false | 'over'> {
    try {
      await this.counted(run);
      return true;
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal !== undefined && STREAM_OVER.has(refusal)) return 'over';
      this.deps.logger.warn(`live progress: ${method} failed`, { error });
      return false;
    }
  }
}

function refusalOf(error: unknown): string | undefined {
  const code = (error as ProgressSlackRefusal | undefined)?.slackError;
  return typeof code === 'string' ? code : undefined;
}
