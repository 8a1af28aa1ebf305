import { isApprovalAction } from '../kernel/approvals.ts';

/**
 * A message whose buttons were pressed, as it is rewritten: its approval buttons replaced by
 * one state line (who decided what, or that nobody did), every other block kept as it was
 * (header, fields, severity and confidence, summary, links, feedback buttons). Pure.
 */

type Block = Record<string, unknown>;

/** The blocks with the state line in place of the approval buttons, or undefined when there are none to keep. */
export function withStateLine(blocks: readonly unknown[] | undefined, line: string): Block[] | undefined {
  if (blocks === undefined || blocks.length === 0) return undefined;
  const stateLine: Block = { type: 'context', elements: [{ type: 'mrkdwn', text: line }] };
  let placed = false;
  const kept: Block[] = [];
  for (const block of blocks) {
    if (!isBlock(block)) continue;
    if (holdsApprovalButtons(block)) {
      // One line for the message, where its buttons were.
      if (!placed) kept.push(stateLine);
      placed = true;
      continue;
    }
    kept.push(block);
  }
  if (!placed) kept.push(stateLine);
  return kept;
}

function holdsApprovalButtons(block: Block): boolean {
  if (block.type !== 'actions') return false;
  if (typeof block.block_id === 'string' && block.block_id.startsWith('approval:')) return true;
  const elements = Array.isArray(block.elements) ? block.elements : [];
  return elements.some((e) => isBlock(e) && typeof e.action_id === 'string' && isApprovalAction(e.action_id));
}

function isBlock(value: unknown): value is Block {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
