/**
 * The owner's wish to end the conversation ("never mind", "close this", "cancel"), kept from
 * seed 000's `_CLOSE_RE`: anchored at the start of the message, so "close the modal and it
 * crashes" is a bug report, not a close.
 */
const CLOSE_INTENT =
  /^\s*(?:please\s+)?(?:never\s*mind|nvm|close\s+(?:this|it|the\s+(?:bug|issue|ticket|report))|cancel(?:\s+(?:this|it))?|stop(?:\s+(?:this|it))?|(?:this\s+is\s+|it'?s\s+)?(?:no\s+longer\s+an?\s+issue|not\s+an?\s+issue\s+anymore)|ignore\s+(?:this|it))\b[\s.!]*(?:$|[,.;!-])/i;

export function isCloseIntent(text: string): boolean {
  return CLOSE_INTENT.test(text);
}
