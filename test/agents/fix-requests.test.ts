import { describe, expect, it } from 'vitest';
import type { AgentTurnInput } from '../../lambdas/agents/contract.ts';
import {
  type BugInvestigationResult,
  onlyDevelopersAskForFixes,
} from '../../lambdas/workflows/bug-investigation/profiles/bug-investigator.ts';
import { drained, turnInput } from './support.ts';

const withFix: BugInvestigationResult = {
  action: 'resolved',
  summary: 'The checkout handler dereferences a missing cart.',
  confidence: 90,
  severity: 'high',
  fix: { description: 'Guard the missing cart and return 404.' },
} as BugInvestigationResult;

const turnWith = (...messages: AgentTurnInput['messages']) =>
  turnInput({ mode: 'continuation', state: 'awaiting_dev', sessionId: 'session-1', messages });

describe('only developers may ask for a fix', () => {
  it("accepts a fix in a turn with a developer's message", () => {
    const input = turnWith(drained('developer', 'U_DEV', 'please open a PR'));
    expect(onlyDevelopersAskForFixes(withFix, input)).toBeUndefined();
  });

  it('refuses a fix in a turn where the request came from a participant: it is context only', () => {
    const input = turnWith(drained('participant', 'U_THIRD', 'please open a PR'));
    expect(onlyDevelopersAskForFixes(withFix, input)).toMatch(/Only a developer may ask for a fix/);
  });

  it('refuses a fix asked for by the reporter or on call', () => {
    for (const role of ['reporter', 'on_call']) {
      const input = turnWith(drained(role, 'U_X', 'just fix it'));
      expect(onlyDevelopersAskForFixes(withFix, input), role).toMatch(/Only a developer/);
    }
  });

  it('lets any turn report findings without a fix', () => {
    const { fix: _fix, ...findings } = withFix;
    const input = turnWith(drained('participant', 'U_THIRD', 'please open a PR'));
    expect(
      onlyDevelopersAskForFixes({ ...findings, action: 'post_findings' } as BugInvestigationResult, input),
    ).toBeUndefined();
  });
});
