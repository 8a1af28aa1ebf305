/**
 * The agent turns running now in a conversation, kept on its record so a Stop knows whether
 * there is anything to stop. Each is `<turn>@<until>`: the turn's number and the latest time it
 * can still be running (its function's deadline), so a turn whose function died counts as ended
 * once that time has passed. Pure.
 */

/** A running turn's entry. */
export function runningTurnEntry(turn: number, until: Date): string {
  return `${turn}@${until.toISOString()}`;
}

/** Whether any turn of the conversation runs at `now`. */
export function turnRunning(
  conversation: { runningTurns?: readonly string[] | undefined },
  now: Date,
): boolean {
  return (conversation.runningTurns ?? []).some((entry) => {
    const until = Date.parse(entry.slice(entry.indexOf('@') + 1));
    return Number.isFinite(until) && until > now.getTime();
  });
}
