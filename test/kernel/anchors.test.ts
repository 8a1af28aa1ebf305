import { describe, expect, it } from 'vitest';
import { type Anchor, readAnchor, slackThreadOf, storedAnchor } from '../../lambdas/kernel/anchors.ts';

describe('conversation anchors', () => {
  const anchors: Anchor[] = [
    { kind: 'slack_thread', channel: 'C0123', threadTs: '1763726500.000100' },
    { kind: 'github_issue', repository: 'acme/shop', number: 42 },
    { kind: 'alert', source: 'pagerduty', incidentKey: 'PF9KMXH' },
    { kind: 'alert', source: 'cloudwatch', incidentKey: 'checkout-5xx:2015-11-21T12:00:00Z' },
    { kind: 'alarm_name', name: 'checkout-5xx' },
  ];

  it('reads every kind of anchor back from its stored channel and thread', () => {
    for (const anchor of anchors) expect(readAnchor(storedAnchor(anchor))).toEqual(anchor);
  });

  it('stores each kind apart, so no two kinds share a key', () => {
    const keys = anchors.map((a) => JSON.stringify(storedAnchor(a)));
    expect(new Set(keys).size).toBe(anchors.length);
  });

  it('finds the Slack thread among anchors from GitHub and alerts, whatever their order', () => {
    const stored = [...anchors].reverse().map(storedAnchor);
    expect(slackThreadOf(stored)).toEqual(anchors[0]);
    expect(slackThreadOf(stored.slice(0, 3))).toBeUndefined();
  });
});
