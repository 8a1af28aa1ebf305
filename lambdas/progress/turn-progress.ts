import { type RedactionCounts, redactionNote } from '../redaction/index.ts';
import { closedPlan, closingLine, type TurnEnd } from './closing.ts';
import { Coalescer, type CoalescerOptions } from './coalescer.ts';
import { findOrOpenTimeline, refusalOf, STREAM_OVER } from './open-message.ts';
import { taskOutcome } from './outcomes.ts';
import type {
  ProgressLedger,
  ProgressLogger,
  ProgressRecord,
  ProgressSlack,
  ProgressStore,
  ProgressTarget,
} from './ports.ts';
import { type RedrawView, redrawMessage, redrawStream } from './redraw.ts';
import { isClaim, SHARED_SAVE_ATTEMPTS, SharedTimeline, samePlan } from './shared-record.ts';
import {
  mergeChunks,
  type ProgressChunk,
  type TimelinePlan,
  type TimelineTask,
  taskChunk,
  upsertTask,
} from './timeline.ts';
import { taskTitle } from './titles.ts';

export interface TurnProgressDeps {
  slack: ProgressSlack;
  store: ProgressStore;
  posts: ProgressLedger;
  clock: { now(): Date };
  logger: ProgressLogger;
  /** How Slack calls are paced per message. @default one per second */
  pacing?: CoalescerOptions;
  /**
   * How long a turn works before its timeline is posted: a turn that answers sooner shows its
   * answer alone (a burst's quick turns cost no progress message). A timeline an earlier
   * invocation or turn of its round opened is continued at once. @default 3000
   */
  showAfterMs?: number;
  /** Waits between looks at a shared timeline another turn is opening. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

export type { TurnEnd } from './closing.ts';

/** How long a turn works before its timeline is posted, unless told otherwise. */
export const SHOW_AFTER_MS = 3_000;

/** What an assistant thread shows while the turn works. */
export const LOADING_MESSAGES = ['Reading the thread…', 'Looking into it…', 'Checking the details…'];

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
    /**
     * Whether the timeline is a round's, shared by turns that may run at once (an incident's
     * hypotheses): its stored tasks are read before each update and written after it, so each
     * turn shows (and keeps) the others' tasks beside its own.
     */
    private readonly shared = false,
  ) {
    this.startedAt = deps.clock.now().getTime();
    this.round = new SharedTimeline(target.conversationId, deps);
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
    // No flush here: it would post nothing and take the pacing slot the first task needs. A
    // turn still working when its timeline is due shows it then, even between two tasks.
    const after = this.showAfterMs();
    if (after > 0)
      this.due = setTimeout(() => {
        this.dueReached = true;
        this.pacer.request();
      }, after);
    this.due?.unref?.();
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
    clearTimeout(this.due);
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

  /** The timer that shows the timeline of a turn still working when it is due. */
  private due: ReturnType<typeof setTimeout> | undefined;
  private dueReached = false;

  private showAfterMs(): number {
    return this.deps.showAfterMs ?? SHOW_AFTER_MS;
  }

  /** Whether the turn is too young for a timeline of its own yet. */
  private quick(): boolean {
    return !this.dueReached && this.deps.clock.now().getTime() - this.startedAt < this.showAfterMs();
  }

  /** Tasks noted before the message exists. */
  private early: TimelineTask[] = [];

  /** The ids of the tasks this invocation changed: its own state of them wins over the stored one. */
  private readonly touched = new Set<string>();
  private readonly round: SharedTimeline;

  private task(task: TimelineTask): void {
    this.touched.add(task.id);
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
    if (this.shared)
      await this.round
        .refresh(record, this.touched)
        .catch((error: unknown) => this.deps.logger.warn('could not read the shared timeline', { error }));
    const chunks = mergeChunks(this.pending.splice(0));
    if (record.kind === 'stream') await redrawStream(record, chunks, ending, this.view());
    else if (chunks.length > 0 || ending !== undefined) await redrawMessage(record, ending, this.view());
    if (ending !== undefined) {
      record.open = ending.kind === 'continues';
      if (ending.kind === 'done') record.closing = this.closingLine(ending);
      await this.save(record);
    } else if (this.shared) await this.save(record);
  }

  /** The turn as a redraw reads it (its plan as it is now). */
  private view(): RedrawView {
    return {
      slack: this.deps.slack,
      conversationId: this.target.conversationId,
      plan: this.plan,
      call: (method, run) => this.call(method, run),
      closingLine: (end) => this.closingLine(end),
    };
  }

  /** Finds the message an earlier invocation of this turn (or of the turn it continues) began, or posts it. */
  private async start(attempt = 0): Promise<void> {
    const { conversationId, channel, threadTs, turn } = this.target;
    // What is pending now goes with the post; what comes while it is made, in the next call
    // (the plan too: a turn that ends meanwhile sends its closed plan after the post).
    const sent = this.pending.length;
    const plan = this.plan;
    try {
      const earlier = await this.round.load(this.shared);
      if (
        earlier?.open &&
        earlier.channel === channel &&
        earlier.threadTs === threadTs &&
        !isClaim(earlier)
      ) {
        this.adopt(earlier);
        // The tasks noted so far are still pending: the first append carries them.
        await this.flush();
        return;
      }
      // Nothing to show yet (a turn ending without tool calls, or a quick one): nothing is posted.
      if (this.early.length === 0 || this.quick()) return;
      const key = `progress:${turn}`;
      // A round's turns that start at once: the one whose claim is saved first posts, the others adopt its message.
      if (this.shared && attempt < SHARED_SAVE_ATTEMPTS) {
        const claim = this.round.claim(this.target, key, earlier?.revision ?? 0);
        if (!(await this.deps.store.saveAt(conversationId, claim, earlier?.revision ?? 0)))
          return await this.start(attempt + 1);
      }
      const { record, found } = await findOrOpenTimeline(
        this.target,
        { key, plan, tasks: this.early, startedAt: new Date(this.startedAt).toISOString() },
        { ...this.deps, counted: (run) => this.counted(run) },
      );
      this.adopt(record);
      this.pending = this.pending.slice(sent);
      await this.save(record);
      await this.deps.posts.record(conversationId, key, { channel, ts: record.ts, threadTs });
      if (found) await redrawMessage(record, this.ending, this.view());
    } catch (error) {
      // Progress is a courtesy: the turn goes on without it in this invocation.
      this.disabled = true;
      this.deps.logger.warn('live progress is off for this turn: could not start it', { error });
    }
  }

  private adopt(record: ProgressRecord): void {
    for (const task of this.early) record.tasks = upsertTask(record.tasks, task);
    this.record = record;
    if (record.plan && !this.plan) this.plan = record.plan;
    // A later turn of the round shows where the round stands now (its own stage in progress).
    else if (this.plan && !samePlan(this.plan, record.plan))
      this.pending.unshift(
        { type: 'plan_update', title: this.plan.title },
        ...this.plan.steps.map(taskChunk),
      );
  }

  private closingLine(end: TurnEnd): string {
    const startedAt = this.record ? Date.parse(this.record.startedAt) : this.startedAt;
    return closingLine(end, this.record?.tasks.length ?? 0, this.deps.clock.now().getTime() - startedAt);
  }

  private async save(record: ProgressRecord): Promise<void> {
    await (this.shared
      ? this.round.save(record, this.plan, this.touched)
      : this.deps.store.save(this.target.conversationId, {
          ...record,
          ...(this.plan ? { plan: this.plan } : {}),
        })
    ).catch((error: unknown) => this.deps.logger.warn('could not save the progress record', { error }));
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
