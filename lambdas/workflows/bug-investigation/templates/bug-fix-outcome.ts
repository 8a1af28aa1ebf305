import * as z from 'zod';
import { withFeedback } from '../../../slack/templates/feedback.ts';
import { mrkdwnText, SECTION_TEXT_LIMIT } from '../../../slack/templates/text.ts';
import type { RenderedMessage } from '../../../slack/templates/types.ts';

/**
 * `bug_fix_outcome`: the fix path's last word, in both threads: the draft pull request, or
 * why there is none (the fixer could not make a fix, the checks still failed after the last
 * attempt, GitHub refused). Never silence. Lenient like the other bug templates: only what
 * is shown is checked.
 */
export const BugFixOutcomeData = z.object({
  fix: z.object({
    attempt: z.number().int().min(0),
    turn: z.object({ action: z.string(), summary: z.string() }).optional(),
    build: z.object({ passed: z.boolean(), summary: z.string() }).optional(),
    pullRequest: z
      .object({ opened: z.boolean(), url: z.string().optional(), reason: z.string().optional() })
      .optional(),
  }),
  maxAttempts: z.number().int().positive(),
});
export type BugFixOutcomeData = z.infer<typeof BugFixOutcomeData>;

const text = (value: string) => mrkdwnText(value, SECTION_TEXT_LIMIT);

/** Why no pull request was opened, in one sentence a reader can act on. */
export function noPullRequestReason(data: BugFixOutcomeData): string {
  const { fix } = data;
  if (fix.pullRequest?.reason) return fix.pullRequest.reason;
  if (fix.turn === undefined || fix.turn.action !== 'fix_written') {
    return `I could not make a fix: ${fix.turn?.summary ?? 'the fix attempt did not finish'}`;
  }
  if (fix.build !== undefined && !fix.build.passed) {
    return fix.attempt >= data.maxAttempts
      ? `the checks still fail after ${fix.attempt} build-and-fix attempt${fix.attempt === 1 ? '' : 's'}.\n${fix.build.summary}`
      : `the build failed.\n${fix.build.summary}`;
  }
  return 'the fix did not reach a pull request.';
}

export function renderBugFixOutcome(data: BugFixOutcomeData): RenderedMessage {
  const pull = data.fix.pullRequest;
  if (pull?.opened && pull.url) {
    const build = data.fix.build?.summary ? `\n${data.fix.build.summary}` : '';
    const announcement = text(
      `:white_check_mark: Draft pull request opened: ${pull.url}\n${data.fix.turn?.summary ?? ''}${build}`,
    );
    return { text: announcement, blocks: withFeedback({ text: announcement }, 'pull_request') };
  }
  return { text: text(`:x: No pull request was opened: ${noPullRequestReason(data)}`) };
}
