/**
 * GitHub and PagerDuty sign no timestamp, unlike Slack: what stands in for Slack's five-minute
 * window is the event's own time, inside the signed body, checked after parsing.
 */

/**
 * Whether an event's own (signed) time is too far from now to accept: older than `maxAgeSeconds`
 * or more than five minutes ahead. An unreadable time counts as stale.
 */
export function isStale(eventTime: string, nowMilliseconds: number, maxAgeSeconds: number): boolean {
  const at = Date.parse(eventTime);
  if (Number.isNaN(at)) return true;
  const age = (nowMilliseconds - at) / 1000;
  return age > maxAgeSeconds || age < -5 * 60;
}
