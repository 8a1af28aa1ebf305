/**
 * Decisions as people read them: a past-tense sentence with an emoji that fits the decision
 * (":x: Rejected by @Otto at ..."), and times in Slack's date formatting, which every reader
 * sees in their own time zone and language, with a UTC fallback for clients that cannot.
 */

/** How a decision reads once made, by the decision a button carries. */
const DECISIONS: Readonly<Record<string, { emoji: string; past: string }>> = {
  approve: { emoji: ':white_check_mark:', past: 'Approved' },
  reject: { emoji: ':x:', past: 'Rejected' },
  acknowledge: { emoji: ':eyes:', past: 'Acknowledged' },
  investigate: { emoji: ':mag:', past: 'Chose to keep investigating' },
  conclude: { emoji: ':checkered_flag:', past: 'Chose to conclude' },
  fix: { emoji: ':hammer_and_wrench:', past: 'Fix requested' },
};

/** `Rejected`, `Acknowledged`; an unknown decision as `Decided "x"`. */
export function decisionPast(decision: string): string {
  return DECISIONS[decision]?.past ?? `Decided "${decision}"`;
}

/** The emoji that goes with a decision. */
export function decisionEmoji(decision: string): string {
  return DECISIONS[decision]?.emoji ?? ':ballot_box_with_check:';
}

/**
 * A time in Slack's date formatting: `<!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>`.
 * A text that is not a time is returned as it is.
 */
export function slackTime(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const fallback = `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time}|${fallback}>`;
}

/** `Rejected by <@U1> at <!date^...>`: who decided what, and when. */
export function decisionSentence(decided: { decision: string; by: string; at: string }): string {
  return `${decisionPast(decided.decision)} by <@${decided.by}> at ${slackTime(decided.at)}`;
}
