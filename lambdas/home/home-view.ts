import { APPROVAL_ACTION_ID, approvalButtonValue } from '../kernel/approvals.ts';
import { statusLabel } from '../shared/status-labels.ts';
import { escapeMrkdwn, plainText, truncate } from '../slack/templates/text.ts';
import { homeApprovalBlockId } from './approval-block-id.ts';

/**
 * The App Home tab of one person (a Block Kit `home` view): their open conversations across
 * workflows, the approvals waiting for them with the same buttons as the approval messages,
 * today's model cost against the daily ceiling (for admins only), and short help. Pure.
 */

/** A view holds at most 100 blocks; the lists below are cut well before that. */
export const MAX_HOME_CONVERSATIONS = 15;
export const MAX_HOME_APPROVALS = 10;

export interface HomeConversation {
  id: string;
  workflow: string;
  status: string;
  phase: string;
  /** What started it (its first message), for a reader. */
  subject?: string;
  /** The thread's permalink, when the conversation has one. */
  link?: string;
  updatedAt: string;
}

export interface HomeApproval {
  conversationId: string;
  workflow: string;
  kind: string;
  /** The approval message's text. */
  text: string;
  choices: readonly string[];
  nonce: string;
  channel: string;
  messageTs: string;
  threadTs?: string;
  link?: string;
  openedAt: string;
}

export interface HomeCost {
  spentUsd: number;
  /** Absent: no daily ceiling is configured. */
  ceilingUsd?: number;
}

export interface HomeCommand {
  command: string;
  description?: string;
  usageHint?: string;
}

export interface HomeViewInput {
  user: string;
  conversations: readonly HomeConversation[];
  approvals: readonly HomeApproval[];
  /** Only for admins; absent for everyone else. */
  cost?: HomeCost;
  commands: readonly HomeCommand[];
  /** More conversations were found than shown (or the search stopped at its bound). */
  truncated?: boolean;
}

type Block = Record<string, unknown>;

const words = (name: string) => name.replaceAll('_', ' ');
const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

export function buildHomeView(input: HomeViewInput): { type: 'home'; blocks: Block[] } {
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Your agents', emoji: true } },
    ...approvalBlocks(input.approvals),
    ...conversationBlocks(input.conversations, input.truncated === true),
    ...(input.cost === undefined ? [] : costBlocks(input.cost)),
    ...helpBlocks(input.commands),
  ];
  return { type: 'home', blocks };
}

function approvalBlocks(approvals: readonly HomeApproval[]): Block[] {
  const shown = approvals.slice(0, MAX_HOME_APPROVALS);
  const blocks: Block[] = [
    { type: 'divider' },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text:
          shown.length === 0
            ? '*Waiting for you*\nNo approval is waiting for you.'
            : `*Waiting for you* (${approvals.length})\nThe buttons decide as the ones in the approval's message do.`,
      },
    },
  ];
  for (const approval of shown) {
    const where = approval.link === undefined ? '' : ` · <${approval.link}|open the message>`;
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          // The approval's text is the bot's own message, mrkdwn already made safe when it was posted.
          `*${escapeMrkdwn(capitalised(words(approval.kind)))}* (${escapeMrkdwn(words(approval.workflow))})${where}\n${approval.text}`,
          2_900,
        ),
      },
    });
    blocks.push({
      type: 'actions',
      block_id: homeApprovalBlockId({
        channel: approval.channel,
        messageTs: approval.messageTs,
        ...(approval.threadTs === undefined ? {} : { threadTs: approval.threadTs }),
      }),
      elements: approval.choices.slice(0, 5).map((decision, index) => ({
        type: 'button',
        action_id: index === 0 ? APPROVAL_ACTION_ID : `${APPROVAL_ACTION_ID}:${index}`,
        text: { type: 'plain_text', text: plainText(capitalised(words(decision)), 75) },
        value: approvalButtonValue({ nonce: approval.nonce, kind: approval.kind, decision }),
        ...(/^(reject|deny|refuse|stop)/.test(decision)
          ? { style: 'danger' }
          : index === 0
            ? { style: 'primary' }
            : {}),
      })),
    });
  }
  return blocks;
}

function conversationBlocks(conversations: readonly HomeConversation[], truncated: boolean): Block[] {
  const shown = conversations.slice(0, MAX_HOME_CONVERSATIONS);
  const lines = shown.map((c) => {
    const subject = c.subject ? `: ${escapeMrkdwn(truncate(c.subject.replace(/\s+/g, ' '), 120))}` : '';
    const name =
      c.link === undefined ? capitalised(words(c.workflow)) : `<${c.link}|${capitalised(words(c.workflow))}>`;
    return `• ${name}${subject}\n    _${escapeMrkdwn(statusLabel(c.status, c.phase))}_`;
  });
  const more = conversations.length > shown.length || truncated ? '\n_More are open than shown here._' : '';
  return [
    { type: 'divider' },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          lines.length === 0
            ? '*Your open conversations*\nNone: you have no conversation with the agents going on.'
            : `*Your open conversations* (${conversations.length})\n${lines.join('\n')}${more}`,
          3_000,
        ),
      },
    },
  ];
}

function costBlocks(cost: HomeCost): Block[] {
  const spent = `$${cost.spentUsd.toFixed(2)}`;
  const text =
    cost.ceilingUsd === undefined
      ? `*Model cost today (UTC)*: ${spent}, with no daily ceiling configured.`
      : `*Model cost today (UTC)*: ${spent} of the $${cost.ceilingUsd.toFixed(2)} daily ceiling (${Math.round((100 * cost.spentUsd) / cost.ceilingUsd)}%).`;
  return [
    { type: 'divider' },
    { type: 'section', text: { type: 'mrkdwn', text } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: 'Shown to admins only.' }] },
  ];
}

function helpBlocks(commands: readonly HomeCommand[]): Block[] {
  const lines = commands.map(
    (c) =>
      `• \`${c.command}${c.usageHint ? ` ${escapeMrkdwn(c.usageHint)}` : ''}\`${c.description ? `: ${escapeMrkdwn(c.description)}` : ''}`,
  );
  return [
    { type: 'divider' },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          [
            '*Help*',
            ...lines,
            '• Each command answers `help` with its usage, only to you.',
            '• Rate any answer with :+1: or :-1: under it; a :-1: asks what was wrong.',
          ].join('\n'),
          3_000,
        ),
      },
    },
  ];
}
