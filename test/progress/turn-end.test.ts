import { describe, expect, it } from 'vitest';
import { STOPPED_BY_PERSON, turnEndOf } from '../../lambdas/progress/open-turn-progress.ts';

describe('how a turn ends its timeline', () => {
  it('keeps it open for a turn that continues in the next invocation', () => {
    expect(turnEndOf({ action: 'continue' })).toEqual({ kind: 'continues' });
  });

  it('closes it for a stopped turn, although a stopped turn ends `continue`', () => {
    expect(turnEndOf({ action: 'continue' }, { stopped: true })).toEqual({
      kind: 'stopped',
      reason: STOPPED_BY_PERSON,
    });
  });

  it('closes it as stopped for a turn that failed, and as done for one with a result', () => {
    expect(turnEndOf({ action: 'escalate', error: 'the model refused' }).kind).toBe('stopped');
    expect(turnEndOf({ action: 'ask_reporter' })).toEqual({ kind: 'done' });
  });
});
