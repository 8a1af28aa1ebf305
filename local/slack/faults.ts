import * as z from 'zod';

/**
 * Misbehaviour of the fake Slack on purpose, for a while (issue 12): so every outage the
 * workflows must survive can be tried by hand (`POST /sandbox/faults`) and in tests.
 * - `rate_limited`: HTTP 429 with `Retry-After` (Slack's rate tiers);
 * - `server_error`: HTTP 500, nothing done;
 * - `no_answer`: the request is held until the client gives up (a hung connection);
 * - `accepted_then_error`: the call is carried out (the message is posted), then answered
 *   HTTP 500, as when Slack accepted a post and the answer was lost.
 */
export const SlackFaultKind = z.enum(['rate_limited', 'server_error', 'no_answer', 'accepted_then_error']);
export type SlackFaultKind = z.infer<typeof SlackFaultKind>;

export const SlackFaultSpec = z
  .strictObject({
    kind: SlackFaultKind,
    /** The Web API method it hits, e.g. `chat.postMessage`. @default every method */
    method: z.string().min(1).optional(),
    /** Only calls whose `channel` argument is this one. @default every channel */
    channel: z.string().min(1).optional(),
    /** For how long, from the first call it meets (seconds of the fake's clock). */
    forSeconds: z.number().positive().optional(),
    /** For how many calls. */
    count: z.number().int().positive().optional(),
    /** `rate_limited` only: the `Retry-After` seconds. @default 1 */
    retryAfterSeconds: z.number().int().min(0).default(1),
  })
  .refine((spec) => spec.forSeconds !== undefined || spec.count !== undefined, {
    message: 'give forSeconds or count: a fault lasts a while, not forever',
  });
export type SlackFaultSpec = z.infer<typeof SlackFaultSpec>;
export type SlackFaultInput = z.input<typeof SlackFaultSpec>;

interface ActiveFault {
  spec: SlackFaultSpec;
  /** Epoch ms after which it is over, when it lasts for a time. */
  until: number | undefined;
  remaining: number | undefined;
  hits: number;
}

/** The faults in force, oldest first; a call takes the first that matches its method. */
export class SlackFaults {
  private active: ActiveFault[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  add(input: SlackFaultInput): SlackFaultSpec {
    const spec = SlackFaultSpec.parse(input);
    this.active.push({
      spec,
      // The clock starts at the first call it meets, so "500s for a minute" is a minute of failures.
      until: undefined,
      remaining: spec.count,
      hits: 0,
    });
    return spec;
  }

  clear(): void {
    this.active = [];
  }

  /** The fault this call of `method` meets, if any (a counted fault is used up by it). */
  take(method: string, channel?: string): SlackFaultSpec | undefined {
    this.prune();
    const fault = this.active.find(
      (f) =>
        (f.spec.method === undefined || f.spec.method === method) &&
        (f.spec.channel === undefined || f.spec.channel === channel),
    );
    if (!fault) return undefined;
    fault.hits += 1;
    if (fault.until === undefined && fault.spec.forSeconds !== undefined)
      fault.until = this.now() + fault.spec.forSeconds * 1000;
    if (fault.remaining !== undefined) fault.remaining -= 1;
    this.prune();
    return fault.spec;
  }

  /** What is in force, for the sandbox's `GET /sandbox/faults`. */
  list(): { spec: SlackFaultSpec; hits: number; remaining?: number; endsInMs?: number }[] {
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
