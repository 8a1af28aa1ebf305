import { describe, expect, it } from 'vitest';
import type { AgentTurnInput } from '../../lambdas/agents/contract.ts';
import { APPROVAL_ACTION_ID, approvalButtonValue } from '../../lambdas/kernel/approvals.ts';
import type { DrainedMessage } from '../../lambdas/kernel/drained-message.ts';
import { FIX_DECISION, REQUEST_FIX } from '../../lambdas/workflows/bug-investigation/fix/fix-request.ts';
import {
  BugInvestigationResult,
  bugTurnOutput,
  onlyDevelopersAskForFixes,
} from '../../lambdas/workflows/bug-investigation/profiles/bug-investigator.ts';
import { drained, turnInput } from './support.ts';

const findings = {
  summary: 'The checkout handler dereferences a missing cart.',
  confidence: 90,
  severity: 'high',
  fix: { description: 'Guard the missing cart and return 404.' },
} as const;

const result = (fields: Partial<BugInvestigationResult>): BugInvestigationResult =>
  ({ action: 'post_findings', ...findings, ...fields }) as BugInvestigationResult;

const turnWith = (...messages: AgentTurnInput['messages']) =>
  turnInput({ mode: 'continuation', state: 'awaiting_dev', sessionId: 'session-1', messages });

const fixItPress = (user: string, ts: string): DrainedMessage => ({
  ...drained('developer', user, `[pressed: ${REQUEST_FIX} ${FIX_DECISION}]`, ts),
  messageType: 'action',
  actionId: APPROVAL_ACTION_ID,
  actionValue: approvalButtonValue({ nonce: 'nonce-0001', kind: REQUEST_FIX, decision: FIX_DECISION }),
});

describe('a fix rests on one act, which the result cites', () => {
  it('requires fix_request with fix_requested: the id of the message that asked', () => {
    const parsed = BugInvestigationResult.safeParse({ action: 'fix_requested', ...findings });
    expect(parsed.success).toBe(false);
  });

  it('carries the cited request into the turn output, for "Check fix request"', () => {
    const output = bugTurnOutput(result({ action: 'fix_requested', fix_request: '1732190000.000200' }), 's');
    expect(output.fixRequest).toBe('1732190000.000200');
  });

  it('leaves a turn with no "Fix it" press to the model: who asked is checked after the turn', () => {
    const input = turnWith(drained('participant', 'U_THIRD', 'please open a PR'));
    expect(onlyDevelopersAskForFixes(result({}), input)).toBeUndefined();
  });

  it('sends back any result but fix_requested citing the press when a developer pressed "Fix it"', () => {
    const input = turnWith(fixItPress('U_DEV', '1732190000.000300'));

    expect(onlyDevelopersAskForFixes(result({ action: 'post_findings' }), input)).toContain(
      'Submit action "fix_requested" with fix_request "1732190000.000300"',
    );
    expect(
      onlyDevelopersAskForFixes(result({ action: 'fix_requested', fix_request: '1732190000.000999' }), input),
    ).toContain('<@U_DEV> pressed "Fix it"');
    expect(
      onlyDevelopersAskForFixes(result({ action: 'fix_requested', fix_request: '1732190000.000300' }), input),
    ).toBeUndefined();
  });

  it('takes a plain button of another kind as no press of "Fix it"', () => {
    const other: DrainedMessage = {
      ...drained('developer', 'U_DEV', '[button something]', '1732190000.000400'),
      messageType: 'action',
      actionId: 'something_else',
      actionValue: '{}',
    };
    expect(onlyDevelopersAskForFixes(result({}), turnWith(other))).toBeUndefined();
  });
});
