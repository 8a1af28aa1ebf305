import * as z from 'zod';
import { link, safeHttpUrl } from '../../../slack/templates/links.ts';
import type { RenderedMessage } from '../../../slack/templates/types.ts';

/**
 * `bug_findings_posted`: tells the reporter, in their thread, that the findings went to the
 * developers, with a link to that message (`post_investigation_results`).
 * `permalink` is filled in by SlackPost (`permalinkOf`); without one the channel is named.
 */
export const BugFindingsPostedData = z.object({
  /** The channel the findings were posted in. */
  channel: z.string().regex(/^[A-Z][A-Z0-9_]+$/, 'expected a Slack channel id such as C0123456789'),
  permalink: z.string().optional(),
});
export type BugFindingsPostedData = z.infer<typeof BugFindingsPostedData>;

export function renderBugFindingsPosted(data: BugFindingsPostedData): RenderedMessage {
  const url = safeHttpUrl(data.permalink);
  const where = url === undefined ? '' : ` (${link(url, 'the findings')})`;
  return {
    text: `:mag: I've posted what I found for the developers in <#${data.channel}>${where}. I'll tell you here when it is fixed, resolved or closed.`,
  };
}
