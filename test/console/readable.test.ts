import { describe, expect, it } from 'vitest';
import { focusScale } from '../../console/src/fit-scale.ts';
import { originOf, readableStatus, subjectLine } from '../../console/src/readable.ts';

/** A subject line's length before it is cut (stated here, not imported: the number is what this test checks). */
const SUBJECT_CHARS = 70;

/** The smallest scale that stays readable (stated here, not imported: the number is what this test checks). */
const READABLE_SCALE = 0.7;

describe("the console's words for a conversation", () => {
  it('says who a wait is for instead of the raw phase', () => {
    expect(readableStatus('active', 'awaiting_reporter')).toBe('Waiting for the reporter');
    expect(readableStatus('active', 'awaiting_dev')).toBe('Waiting for the developers');
    // The bug workflow's status while its findings wait for developers is not an end.
    expect(readableStatus('pending_verification', 'awaiting_dev')).toBe('Waiting for the developers');
    expect(readableStatus('active', 'awaiting_approval')).toBe('Waiting for an approval');
    expect(readableStatus('active', 'awaiting_security_team')).toBe('Waiting for the security team');
  });

  it('says an ended conversation ended, whatever its last phase', () => {
    expect(readableStatus('resolved', 'awaiting_dev')).toBe('Resolved');
    expect(readableStatus('failed', 'investigating')).toBe('Failed');
  });

  it('puts other phases and statuses in words', () => {
    expect(readableStatus('active', 'investigating')).toBe('Investigating');
    expect(readableStatus('active', 'attentive')).toBe('Listening');
    expect(readableStatus('active', '')).toBe('Active');
  });

  it('names a conversation by the first line of what began it, without Slack markup or markers', () => {
    expect(subjectLine('<@U_BOT> idea: dark mode for the <https://x.test/app|app>\nmore')).toBe(
      '@U_BOT idea: dark mode for the app',
    );
    // With the workspace's names, a mention reads as the person (or the bot) it names.
    const names: Record<string, string> = { U_BOT: 'agent', U0ALICE: 'Alice' };
    expect(subjectLine('<@U_BOT> when do deploys run, <@U0ALICE>?', (id) => names[id] ?? id)).toBe(
      '@agent when do deploys run, @Alice?',
    );
    expect(subjectLine('[offline demo model] checkout fails')).toBe('checkout fails');
    expect(subjectLine('   ')).toBeUndefined();
    expect(subjectLine(undefined)).toBeUndefined();
  });

  it('cuts a long subject at a word', () => {
    const long = 'the checkout page shows a blank total after the payment redirect on every browser we tried';
    const subject = subjectLine(long) ?? '';
    expect(subject.length).toBeLessThanOrEqual(SUBJECT_CHARS + 1);
    expect(subject.endsWith('…')).toBe(true);
    expect(long.startsWith(subject.slice(0, -1))).toBe(true);
  });

  it('tells where a conversation from outside Slack came from', () => {
    expect(originOf({ channel: 'github:demo/webshop', threadTs: '12' })).toBe('GitHub demo/webshop#12');
    expect(originOf({ channel: 'alert:cloudwatch', threadTs: 'checkout-5xx' })).toBe(
      'Alert from cloudwatch (checkout-5xx)',
    );
    expect(originOf({ channel: 'C_BUG_REPORTS', threadTs: '1.2' })).toBeUndefined();
  });
});

describe("the graph's Around zoom", () => {
  it('shows a graph whole while it is readable, and at 100% around one state when it is not', () => {
    expect(focusScale(1)).toBe(1);
    expect(focusScale(READABLE_SCALE)).toBe(READABLE_SCALE);
    expect(focusScale(0.3)).toBe(1);
  });
});
