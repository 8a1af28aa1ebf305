import type { DrainedMessage } from '../../../kernel/tasks.ts';
import type { FixRequestCheck, FixRequestCheckInput } from './contract.ts';
import { bugWorkBranch } from './work-branch.ts';

/**
 * Who may have a fix made: the code's check, not the model's. The investigator saying
 * `fix_requested` is not enough; one of the messages its turn saw must come from a developer.
 *
 * THE ROLE SEAM: today a developer is whoever the thread anchors make one (a reply in the
 * findings or escalation thread, `senderType: 'developer'`). When roles come from
 * configuration (Slack user groups and ids), `isDeveloper` is the one place to ask them.
 */
export function isDeveloper(message: Pick<DrainedMessage, 'senderType' | 'senderId'>): boolean {
  return message.senderType === 'developer';
}

export function checkFixRequest(input: FixRequestCheckInput): FixRequestCheck {
  const developer = input.messages.find(isDeveloper);
  const workBranch = bugWorkBranch(input.conversationId);
  if (developer === undefined) {
    return {
      workBranch,
      allowed: false,
      reason:
        'No developer asked for a fix in the messages of this turn: a request from anyone else is context only.',
    };
  }
  return {
    workBranch,
    allowed: true,
    requestedBy: developer.senderId,
    reason: `<@${developer.senderId}> asked for a fix.`,
  };
}
