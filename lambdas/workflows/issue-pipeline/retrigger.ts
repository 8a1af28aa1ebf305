import type { ProgressAnchors } from './ports.ts';

/**
 * The answer on an issue labelled again while its pipeline runs (one pipeline per issue): where
 * it runs, as `/fix` answers in Slack, with links to its Slack thread and its progress comment.
 */

/** A Slack link to a message (Slack redirects it to the workspace). */
export function slackMessageLink(channel: string, ts: string): string {
  return `https://slack.com/archives/${channel}/p${ts.replace('.', '')}`;
}

/**
 * The answer's hidden mark, by the triggering event: a retried delivery finds it on the issue
 * and does not answer twice.
 */
export function retriggerMark(ts: string): string {
  return `<!-- agent-pipeline-retrigger:${ts.replace(/[^0-9A-Za-z._:-]/g, '_')} -->`;
}

/** The comment answering `user` (`github:login`), who triggered the running pipeline again. */
export function retriggerAnswer(input: {
  user: string;
  ts: string;
  issueUrl: string;
  anchors: ProgressAnchors;
}): string {
  const login = input.user.replace(/^github:/, '');
  const { slack, commentId } = input.anchors;
  const where = [
    ...(slack ? [`its Slack thread: ${slackMessageLink(slack.channel, slack.ts)}`] : []),
    ...(commentId !== undefined ? [`its progress: ${input.issueUrl}#issuecomment-${commentId}`] : []),
  ];
  const links = where.length > 0 ? `\n\n${where.map((w) => `- ${w}`).join('\n')}` : '';
  return `@${login} the agent pipeline is already running on this issue; it is not started twice.${links}\n\n${retriggerMark(input.ts)}`;
}
