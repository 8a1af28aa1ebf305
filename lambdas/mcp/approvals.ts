import { randomUUID } from 'node:crypto';
import { type ApprovalWaitDeps, expireApprovalWait } from '../kernel/approval-wait.ts';
import type { OpenApproval } from '../kernel/approvals.ts';
import type { SlackPostInput } from '../kernel/tasks.ts';
import { MCP_DECISION } from './config.ts';
import type { McpApprovalOutcome, McpApprovalRequest, McpApprovals } from './ports.ts';

/**
 * An MCP call's approval, on the kernel's approvals (docs/approvals.md): a message in the
 * conversation's thread names the server, the tool and the exact arguments, with Approve and
 * Reject buttons of the kind `mcp_tool_call` (who may press them is `slackAgents.approvals`),
 * a nonce, and an expiry. The Router judges each press as it judges a remediation step's; the
 * turn reads the decision from the conversation's record while it waits, and at the expiry
 * marks the approval expired with the approval wait's own code, so a later press changes nothing.
 * The wait ends at the expiry or at the turn's deadline, whichever is first.
 */

/** Characters of the arguments shown: longer ones cannot be shown exactly, so the call is not asked. */
export const MAX_SHOWN_ARGS = 2_400;

export interface McpApprovalDeps {
  /** Where the approval is asked: the conversation's thread, or none (then nothing can be approved). */
  thread: { channel: string; threadTs: string } | undefined;
  /** Posts the message with its approval (SlackPost's `postToSlack`); returns the approval's nonce. */
  post(input: SlackPostInput): Promise<{ approvalNonce?: string | undefined }>;
  /** The approval of `MCP_DECISION` open on the conversation now (a consistent read). */
  current(conversationId: string): Promise<OpenApproval | undefined>;
  /** The approval wait's expiry (kernel/approval-wait.ts) needs these. */
  expiry: Pick<ApprovalWaitDeps, 'store' | 'notices' | 'warn'>;
  clock: { now(): Date };
  /** Epoch ms by which the turn must have its answer; the wait ends before. */
  deadlineMs: number;
  /** @default 1000 */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export function createMcpApprovals(deps: McpApprovalDeps): McpApprovals {
  return { request: (request) => askAndWait(request, deps) };
}

async function askAndWait(request: McpApprovalRequest, deps: McpApprovalDeps): Promise<McpApprovalOutcome> {
  const { thread, clock } = deps;
  if (thread === undefined)
    return { outcome: 'unavailable', reason: 'the conversation has no Slack thread to ask in' };
  const shown = JSON.stringify(request.args, null, 2);
  if (shown.length > MAX_SHOWN_ARGS)
    return {
      outcome: 'unavailable',
      reason: `its arguments are too long (${shown.length} characters) to show an approver exactly`,
    };
  const endsAt = Math.min(clock.now().getTime() + request.expiresInMs, deps.deadlineMs);
  if (endsAt - clock.now().getTime() < 5_000)
    return { outcome: 'unavailable', reason: 'the turn has too little time left to wait for an approval' };
  const text =
    `:lock: An agent asks to call the tool *${request.tool}* of the MCP server *${request.server}* with these arguments:\n` +
    `\`\`\`${shown}\`\`\`\nApprove runs it once. Reject, or no decision by <!date^${Math.floor(endsAt / 1000)}^{time}|${new Date(endsAt).toISOString()}>, runs nothing.`;
  const posted = await deps.post({
    conversationId: request.conversationId,
    channel: thread.channel,
    threadTs: thread.threadTs,
    text,
    approval: {
      kind: MCP_DECISION,
      buttons: [
        { decision: 'approve', label: 'Approve', style: 'primary' },
        { decision: 'reject', label: 'Reject', style: 'danger' },
      ],
    },
    idempotencyKey: `mcp-approval:${randomUUID()}`,
  });
  const nonce = posted.approvalNonce;
  if (nonce === undefined) return { outcome: 'unavailable', reason: 'the approval was not opened' };
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (;;) {
    const open = await deps.current(request.conversationId);
    if (open?.nonce !== nonce)
      return { outcome: 'unavailable', reason: 'a later approval request replaced it' };
    if (open.decided !== undefined) return decided(open.decided);
    if (clock.now().getTime() >= endsAt) {
      const result = await expireApprovalWait(
        { step: 'expire', conversationId: request.conversationId, kind: MCP_DECISION, nonce },
        { ...deps.expiry, clock },
      );
      return result.outcome === 'decided' ? decided(result) : { outcome: 'expired', at: result.at };
    }
    await sleep(Math.min(deps.pollMs ?? 1_000, Math.max(0, endsAt - clock.now().getTime())));
  }
}

function decided(record: { decision: string; by: string; at: string }): McpApprovalOutcome {
  return { outcome: record.decision === 'approve' ? 'approved' : 'rejected', by: record.by, at: record.at };
}
