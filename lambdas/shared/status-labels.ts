/**
 * What a conversation's state is called wherever people read it (the App Home, the console):
 * one table, so the same state reads the same everywhere. The kernel's status and phase names
 * (`pending_verification`, `awaiting_dev`) are for code; people read "Waiting for the
 * developers". Pure, and imported by the console too (no Node APIs).
 */

/** Who a wait is for, by the last word of an `awaiting_<who>` phase. */
const WAITING_FOR: Readonly<Record<string, string>> = {
  reporter: 'the reporter',
  dev: 'the developers',
  developers: 'the developers',
  requester: 'the requester',
  answer: 'an answer',
  approval: 'an approval',
  people: 'people to answer',
};

/** Statuses that say all there is (the phase adds nothing once a conversation ended). */
const FINAL: Readonly<Record<string, string>> = {
  resolved: 'Resolved',
  closed: 'Closed',
  failed: 'Failed',
  starting: 'Starting',
};

/** Phases whose words alone would not say what is going on. */
const PHASES: Readonly<Record<string, string>> = {
  attentive: 'Listening',
  ended: 'Ended',
};

/** A code name in words, first letter capital: `security_review` -> "Security review". */
export function sentenceOf(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The conversation's state as a sentence: "Waiting for the reporter" for a phase
 * `awaiting_reporter`, "Resolved" for a status `resolved`, the phase in words otherwise
 * ("Investigating"), and the status in words when there is no phase.
 */
export function statusLabel(status: string, phase: string): string {
  const final = FINAL[status];
  if (final !== undefined) return final;
  const waiting = /^awaiting_(.+)$/.exec(phase);
  if (waiting?.[1]) return `Waiting for ${WAITING_FOR[waiting[1]] ?? `the ${waiting[1].replace(/_/g, ' ')}`}`;
  const known = PHASES[phase];
  if (known !== undefined) return known;
  if (phase !== '' && phase !== status) return sentenceOf(phase);
  return sentenceOf(status);
}
