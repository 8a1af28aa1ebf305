import * as z from 'zod';
import { FaultSchedule } from '../fault-schedule.ts';

/**
 * Misbehaviour of the fake Slack on purpose, for a while: so every outage the
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

/** The fake Slack's faults in force, oldest first; a call takes the first that matches its method and channel. */
export class SlackFaults {
  private readonly schedule: FaultSchedule<SlackFaultSpec>;

  constructor(now: () => number = Date.now) {
    this.schedule = new FaultSchedule(now);
  }

  add(input: SlackFaultInput): SlackFaultSpec {
    return this.schedule.add(SlackFaultSpec.parse(input));
  }

  clear(): void {
    this.schedule.clear();
  }

  /** The fault this call of `method` meets, if any (a counted fault is used up by it). */
  take(method: string, channel?: string): SlackFaultSpec | undefined {
    return this.schedule.take(
      (spec) =>
        (spec.method === undefined || spec.method === method) &&
        (spec.channel === undefined || spec.channel === channel),
    );
  }

  /** What is in force, for the sandbox's `GET /sandbox/faults`. */
  list() {
    return this.schedule.list();
  }
}
