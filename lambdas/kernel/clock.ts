/**
 * The time the kernel reads: the system's in Lambda, a test's or the sandbox's own where they
 * control it. A module of its own, importing nothing, so any part of the kernel may read the
 * clock without importing what else `ports.ts` declares.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
