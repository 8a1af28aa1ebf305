import { createHash } from 'node:crypto';

/**
 * A trigger id shaped like a Slack one (`<digits>.<digits>.<hex>`) that tells nothing of the
 * case, or that it is one: derived from a hash of `seed` (the case id), so a replay sends the
 * same prompts as the run it replays, and no prompt can read the case's name from it.
 */
export function slackTriggerId(seed: string): string {
  const hash = createHash('sha256').update(`trigger:${seed}`).digest();
  const digits = (from: number) =>
    Array.from(hash.subarray(from, from + 13), (b, i) => (i === 0 ? 1 + (b % 9) : b % 10)).join('');
  return `${digits(0)}.${digits(13)}.${hash.subarray(0, 16).toString('hex')}`;
}
