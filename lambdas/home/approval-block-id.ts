/**
 * The App Home shows the approvals waiting for a person with the same buttons as their
 * messages. A press in the Home tab arrives without a channel or message (its container is
 * the view), so the buttons' block id carries where the approval's message is: the ingress
 * turns such a press back into a press on that message, and it takes the approval path
 * every press takes (the button's nonce, the presser's role, the conditional decision).
 */

const PREFIX = 'home_approval';

/** Where an approval's message is: its channel, its ts, and the root of its thread. */
export interface ApprovalPlace {
  channel: string;
  messageTs: string;
  threadTs?: string;
}

/** `home_approval:<channel>:<message ts>[:<thread ts>]` (Slack ids and ts hold no `:`). */
export function homeApprovalBlockId(place: ApprovalPlace): string {
  return [PREFIX, place.channel, place.messageTs, ...(place.threadTs ? [place.threadTs] : [])].join(':');
}

/** The place a Home tab approval block names, or undefined when the block id is not one. */
export function parseHomeApprovalBlockId(blockId: string | undefined): ApprovalPlace | undefined {
  if (blockId === undefined) return undefined;
  const parts = blockId.split(':');
  if (parts[0] !== PREFIX || parts.length < 3 || parts.length > 4) return undefined;
  const [, channel, messageTs, threadTs] = parts;
  const id = /^[A-Z0-9_]{1,64}$/i;
  const ts = /^\d{1,12}\.\d{1,8}$/;
  if (!channel || !id.test(channel) || !messageTs || !ts.test(messageTs)) return undefined;
  if (threadTs !== undefined && !ts.test(threadTs)) return undefined;
  return { channel, messageTs, ...(threadTs === undefined ? {} : { threadTs }) };
}
