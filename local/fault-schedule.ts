/** What every sandbox fault spec says about how long it lasts. */
export interface FaultDuration {
  /** For how long, from the first call it meets (seconds of the schedule's clock). */
  forSeconds?: number | undefined;
  /** For how many calls. */
  count?: number | undefined;
}

interface ActiveFault<Spec> {
  spec: Spec;
  /** Epoch ms after which it is over, when it lasts for a time. */
  until: number | undefined;
  remaining: number | undefined;
  hits: number;
}

/**
 * The faults in force for one emulator (the fake Slack, the model), oldest first: a call takes
 * the first that matches it. A fault lasts `count` calls or `forSeconds` from the first call it
 * meets, so "500s for a minute" is a minute of failures whenever the first call comes.
 */
export class FaultSchedule<Spec extends FaultDuration> {
  private active: ActiveFault<Spec>[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  add(spec: Spec): Spec {
    this.active.push({ spec, until: undefined, remaining: spec.count, hits: 0 });
    return spec;
  }

  clear(): void {
    this.active = [];
  }

  /** The fault this call meets, if any (a counted fault is used up by it). */
  take(matches: (spec: Spec) => boolean = () => true): Spec | undefined {
    this.prune();
    const fault = this.active.find((f) => matches(f.spec));
    if (!fault) return undefined;
    fault.hits += 1;
    if (fault.until === undefined && fault.spec.forSeconds !== undefined)
      fault.until = this.now() + fault.spec.forSeconds * 1000;
    if (fault.remaining !== undefined) fault.remaining -= 1;
    this.prune();
    return fault.spec;
  }

  /** What is in force, for the sandbox's `GET /sandbox/faults`. */
  list(): { spec: Spec; hits: number; remaining?: number; endsInMs?: number }[] {
    this.prune();
    return this.active.map((f) => ({
      spec: f.spec,
      hits: f.hits,
      ...(f.remaining === undefined ? {} : { remaining: f.remaining }),
      ...(f.until === undefined ? {} : { endsInMs: Math.max(0, f.until - this.now()) }),
    }));
  }

  private prune(): void {
    const now = this.now();
    this.active = this.active.filter(
      (f) => (f.until === undefined || now < f.until) && (f.remaining === undefined || f.remaining > 0),
    );
  }
}
