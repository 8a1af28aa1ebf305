import { describe, expect, it } from 'vitest';
import { turnEndOf } from '../../lambdas/progress/open-turn-progress.ts';
import { INCIDENT_ROUND } from '../../lambdas/workflows/incident-investigation/progress-plan.ts';

/** What a timeline says of a turn a person stopped (stated here, not imported: the value is what this test checks). */
const STOPPED_BY_PERSON = 'stopped by a person in the thread';

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

  it('says who closed the conversation for a turn a close stopped, never that it ended without finishing', () => {
    expect(turnEndOf({ action: 'continue' }, { stopped: true, closedBy: 'U_RITA' })).toEqual({
      kind: 'stopped',
      reason: 'closed by <@U_RITA>',
    });
  });

  it('closes it as stopped for a turn that failed, and as done for one with a result', () => {
    expect(turnEndOf({ action: 'escalate', error: 'the model refused' }).kind).toBe('stopped');
    expect(turnEndOf({ action: 'ask_reporter' })).toEqual({ kind: 'done' });
  });

  it("keeps a round's timeline open after a turn the round goes on after, however it ended", () => {
    expect(turnEndOf({ action: 'submitted' }, { roundGoesOn: true })).toEqual({ kind: 'continues' });
    expect(turnEndOf({ action: 'escalate', error: 'x' }, { roundGoesOn: true })).toEqual({
      kind: 'continues',
    });
  });
});

describe("an incident's round", () => {
  it('ends with the remediation plan, or with a phase turn a person stopped, never with a hypothesis tested', () => {
    expect(INCIDENT_ROUND.ends({ profile: 'incident_remediator' }, { stopped: false })).toBe(true);
    expect(INCIDENT_ROUND.ends({ profile: 'incident_triager' }, { stopped: false })).toBe(false);
    expect(INCIDENT_ROUND.ends({ profile: 'incident_concluder' }, { stopped: false })).toBe(false);
    expect(INCIDENT_ROUND.ends({ profile: 'incident_triager' }, { stopped: true })).toBe(true);
    expect(INCIDENT_ROUND.ends({ profile: 'incident_investigator' }, { stopped: true })).toBe(false);
  });
});
