import { describe, expect, it } from 'vitest';
import { conversationIdFor } from '../../lambdas/kernel/keys.ts';

const EXECUTION_NAME = /^[A-Za-z0-9_-]{1,80}$/;
/** The longest id, stated here: an execution name's 80 characters less `-<turn>` (a dash, 7 digits). */
const MAX_ID_LENGTH = 72;
const alarmArn = (name: string) => `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${name}`;

describe('conversation ids', () => {
  it('keeps a Slack thread id readable and as it always was', () => {
    expect(conversationIdFor('bug_investigation', 'C0123ABC', '1700000000.000100')).toBe(
      'bug-investigation-C0123ABC-1700000000-000100',
    );
  });

  it('gives two alarms of one account and region two ids (regression: they were cut at 80 characters into one)', () => {
    const first = conversationIdFor(
      'incident_investigation',
      'alert:cloudwatch',
      alarmArn('checkout-5xx-rate'),
    );
    const second = conversationIdFor(
      'incident_investigation',
      'alert:cloudwatch',
      alarmArn('checkout-latency-p99'),
    );

    expect(first).not.toBe(second);
    for (const id of [first, second]) {
      expect(id).toMatch(EXECUTION_NAME);
      expect(id.length).toBeLessThanOrEqual(MAX_ID_LENGTH);
      expect(id.startsWith('incident-investigation-alert-cloudwatch-')).toBe(true);
    }
  });

  it('keeps apart ids that differ only at the very end of a long id', () => {
    const long = `${'x'.repeat(300)}`;
    const ids = new Set(
      ['a', 'b', 'c'].map((end) => conversationIdFor('kernel_probe', 'alert:pagerduty', long + end)),
    );
    expect(ids.size).toBe(3);
  });

  it('keeps apart ids whose only difference is a character made safe (a.b and a-b)', () => {
    const dotted = conversationIdFor('issue_pipeline', 'github:acme/web.shop', '7');
    const dashed = conversationIdFor('issue_pipeline', 'github:acme/web-shop', '7');
    expect(dotted).not.toBe(dashed);
  });

  it('keeps apart the same characters split differently between channel and origin', () => {
    expect(conversationIdFor('w', 'alert:a-b', 'c')).not.toBe(conversationIdFor('w', 'alert:a', 'b-c'));
  });

  it('is deterministic, so a redelivered start finds the same execution', () => {
    const arn = alarmArn('checkout-5xx-rate');
    expect(conversationIdFor('incident_investigation', 'alert:cloudwatch', arn)).toBe(
      conversationIdFor('incident_investigation', 'alert:cloudwatch', arn),
    );
  });

  it('leaves room in an execution name for a later turn (`<id>-<turn>`)', () => {
    const id = conversationIdFor('incident_investigation', 'alert:cloudwatch', alarmArn('y'.repeat(200)));
    expect(`${id}-9999999`).toMatch(EXECUTION_NAME);
  });
});
