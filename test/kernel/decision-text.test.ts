import { describe, expect, it } from 'vitest';
import { decidedText, expiredText } from '../../lambdas/kernel/approvals.ts';
import { decisionSentence, slackTime } from '../../lambdas/kernel/decision-text.ts';

const record = (decision: string) => ({
  kind: 'approve_step',
  decision,
  by: 'U_OTTO',
  at: '2023-11-14T22:13:20.000Z',
  nonce: 'n1',
  pressTs: '1700000000.000100',
  messageTs: '1699999000.000100',
});

describe('decisions as people read them', () => {
  it('writes a time in Slack date formatting with a UTC fallback', () => {
    expect(slackTime('2023-11-14T22:13:20.000Z')).toBe(
      '<!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>',
    );
    expect(slackTime('not a time')).toBe('not a time');
  });

  it('shows a rejection as a past-tense sentence with a cross, not a check mark', () => {
    expect(decidedText(record('reject'))).toBe(
      ':x: Rejected by <@U_OTTO> at <!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>',
    );
  });

  it('reads "Acknowledged by", not "acknowledge by"', () => {
    expect(decisionSentence(record('acknowledge'))).toMatch(
      /^Acknowledged by <@U_OTTO> at <!date\^1700000000\^/,
    );
  });

  it('shows an approval with a check mark', () => {
    expect(decidedText(record('approve'))).toMatch(/^:white_check_mark: Approved by <@U_OTTO>/);
  });

  it('reads a "Fix it" press as a fix requested by that person', () => {
    expect(decidedText(record('fix'))).toMatch(/^:hammer_and_wrench: Fix requested by <@U_OTTO> at /);
  });

  it('still reads as a sentence for a decision it has no words for', () => {
    expect(decidedText(record('defer'))).toMatch(/^:ballot_box_with_check: Decided "defer" by <@U_OTTO>/);
  });

  it('says an expiry with its time', () => {
    expect(expiredText('2023-11-14T22:13:20.000Z')).toBe(
      ':hourglass: Expired: nobody decided by <!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC>.',
    );
  });
});
