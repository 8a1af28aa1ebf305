import type { ProgressLogger, ProgressRecord, ProgressStore, ProgressTarget } from './ports.ts';
import type { TimelinePlan, TimelineTask } from './timeline.ts';

/**
 * A round's timeline, shared by turns that may run at once: each turn keeps the tasks the
 * others stored, and its own state of the tasks it changed. Pure.
 */

/** The stored tasks, in their order, with this turn's own ones (`touched`) as this turn has them. */
export function mergeStoredTasks(
  stored: readonly TimelineTask[],
  ours: readonly TimelineTask[],
  touched: ReadonlySet<string>,
): TimelineTask[] {
  const own = new Map(ours.filter((t) => touched.has(t.id)).map((t) => [t.id, t]));
  const merged = stored.map((t) => own.get(t.id) ?? t);
  const present = new Set(stored.map((t) => t.id));
  return [...merged, ...ours.filter((t) => touched.has(t.id) && !present.has(t.id))];
}

/** Whether two plans show the same thing (a later turn of the round shows its own stage). */
export function samePlan(a: TimelinePlan, b: TimelinePlan | undefined): boolean {
  return (
    b !== undefined &&
    a.title === b.title &&
    a.steps.length === b.steps.length &&
    a.steps.every((s, i) => s.id === b.steps[i]?.id && s.status === b.steps[i]?.status)
  );
}

/** Conditional saves of a shared timeline tried before giving up (each reads the record again). */
export const SHARED_SAVE_ATTEMPTS = 5;
/** A claim's `ts`: a round's turn is posting the shared timeline's message. */
const CLAIM = 'claim:';
/** How long a turn waits for another's claim to become a message, and how often it looks. */
const CLAIM_WAIT_MS = 5_000;
const CLAIM_POLL_MS = 250;
/** A claim this old is void (its turn died before posting): another turn may post. */
const CLAIM_STALE_MS = 30_000;

export const isClaim = (record: ProgressRecord) => record.ts.startsWith(CLAIM);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A shared timeline's reads and writes in the store. */
export class SharedTimeline {
  constructor(
    private readonly conversationId: string,
    private readonly deps: {
      store: ProgressStore;
      clock: { now(): Date };
      logger: ProgressLogger;
      sleep?: (ms: number) => Promise<void>;
    },
  ) {}

  /** The stored record; when `waitForClaim`, another turn's claim is waited for, briefly, to become a message. */
  async load(waitForClaim: boolean): Promise<ProgressRecord | undefined> {
    const load = () => this.deps.store.load(this.conversationId);
    let record = await load();
    for (let waited = 0; waitForClaim && record && isClaim(record) && waited < CLAIM_WAIT_MS; ) {
      if (this.deps.clock.now().getTime() - Date.parse(record.startedAt) > CLAIM_STALE_MS) break;
      await (this.deps.sleep ?? sleep)(CLAIM_POLL_MS);
      waited += CLAIM_POLL_MS;
      record = await load();
    }
    return record;
  }

  /** A claim at the revision after `revision`: this turn is posting the timeline's message. */
  claim(target: ProgressTarget, key: string, revision: number): ProgressRecord {
    const { channel, threadTs, turn } = target;
    const startedAt = this.deps.clock.now().toISOString();
    const ts = `${CLAIM}${turn}`;
    return {
      key,
      channel,
      threadTs,
      ts,
      kind: 'message',
      open: true,
      tasks: [],
      startedAt,
      revision: revision + 1,
    };
  }

  /** The tasks other turns stored since `record` was last read (into `record`); the stored revision. */
  async refresh(record: ProgressRecord, touched: ReadonlySet<string>): Promise<number> {
    const stored = await this.deps.store.load(this.conversationId);
    if (stored?.ts === record.ts) record.tasks = mergeStoredTasks(stored.tasks, record.tasks, touched);
    return stored?.revision ?? 0;
  }

  /** Read, merge, and write only if nobody wrote in between (else again, a few times). */
  async save(
    record: ProgressRecord,
    plan: TimelinePlan | undefined,
    touched: ReadonlySet<string>,
  ): Promise<void> {
    for (let attempt = 0; attempt < SHARED_SAVE_ATTEMPTS; attempt += 1) {
      const revision = await this.refresh(record, touched);
      const next = { ...record, ...(plan ? { plan } : {}), revision: revision + 1 };
      if (await this.deps.store.saveAt(this.conversationId, next, revision)) return;
    }
    this.deps.logger.warn('could not save the shared timeline: other turns kept writing it');
  }
}
