/**
 * The conversation record's updates for a close and a stop requested (dynamo-store.ts runs them).
 */

/** A close: a turn running then is stopped by it (run-agent-turn.ts); one begun after is not. */
export function closeRequestedUpdate(now: string) {
  return {
    UpdateExpression:
      'SET closeRequested = :yes, closeRequestedAt = if_not_exists(closeRequestedAt, :now), updatedAt = :now',
    ExpressionAttributeValues: { ':yes': true, ':now': now },
  };
}

/** A stop: every stop counts from its own time, so a turn begun after an earlier stop is stopped again. */
export function stopRequestedUpdate(now: string) {
  return {
    UpdateExpression: 'SET stopRequestedAt = :now, updatedAt = :now',
    ExpressionAttributeValues: { ':now': now },
  };
}
