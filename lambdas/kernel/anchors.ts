/**
 * Where a conversation lives: a Slack thread, a GitHub issue (or pull request), an alert's
 * incident, or a CloudWatch alarm by its name alone. The kernel reasons on this union; thread
 * links and conversation anchors store it as a channel and a thread (the keys DynamoDB holds),
 * and `readAnchor` gives the union back. Slack channel ids never hold a `:`, so the prefixes
 * below cannot collide with a Slack thread.
 */
export type Anchor =
  | { readonly kind: 'slack_thread'; readonly channel: string; readonly threadTs: string }
  | { readonly kind: 'github_issue'; readonly repository: string; readonly number: number }
  | { readonly kind: 'alert'; readonly source: AlertSource; readonly incidentKey: string }
  /**
   * Where an alarm's latest conversation is found by the alarm's name alone: an alert's own
   * anchor carries the ALARM episode, which a command naming the alarm does not know.
   */
  | { readonly kind: 'alarm_name'; readonly name: string };

export type AlertSource = 'cloudwatch' | 'pagerduty';

/** An anchor as stored: a channel (or what stands in its place) and a thread. */
export interface StoredAnchor {
  readonly channel: string;
  readonly threadTs: string;
}

const GITHUB = 'github:';
const ALERT = 'alert:';
const ALARM_NAME = 'alarm:cloudwatch';

/** The stored form of an anchor (a thread link's key, a conversation anchor's channel and thread). */
export function storedAnchor(anchor: Anchor): { channel: string; threadTs: string } {
  switch (anchor.kind) {
    case 'slack_thread':
      return { channel: anchor.channel, threadTs: anchor.threadTs };
    case 'github_issue':
      return { channel: `${GITHUB}${anchor.repository}`, threadTs: String(anchor.number) };
    case 'alert':
      return { channel: `${ALERT}${anchor.source}`, threadTs: anchor.incidentKey };
    case 'alarm_name':
      return { channel: ALARM_NAME, threadTs: anchor.name };
  }
}

/** The anchor a stored channel and thread stand for. */
export function readAnchor(stored: StoredAnchor): Anchor {
  const { channel, threadTs } = stored;
  if (channel.startsWith(GITHUB)) {
    return { kind: 'github_issue', repository: channel.slice(GITHUB.length), number: Number(threadTs) };
  }
  if (channel.startsWith(ALERT)) {
    return { kind: 'alert', source: channel.slice(ALERT.length) as AlertSource, incidentKey: threadTs };
  }
  if (channel === ALARM_NAME) return { kind: 'alarm_name', name: threadTs };
  return { kind: 'slack_thread', channel, threadTs };
}

/** Whether a stored anchor is a Slack thread (where people can be answered in Slack). */
export function isSlackThread(stored: StoredAnchor): boolean {
  return readAnchor(stored).kind === 'slack_thread';
}

/** The first Slack thread among a conversation's anchors, if it has one. */
export function slackThreadOf(
  anchors: Iterable<StoredAnchor>,
): Extract<Anchor, { kind: 'slack_thread' }> | undefined {
  for (const stored of anchors) {
    const anchor = readAnchor(stored);
    if (anchor.kind === 'slack_thread') return anchor;
  }
  return undefined;
}

/** A Slack link to a thread (Slack redirects it to the workspace). */
export function threadLink(thread: StoredAnchor): string {
  return `https://slack.com/archives/${thread.channel}/p${thread.threadTs.replace('.', '')}`;
}
