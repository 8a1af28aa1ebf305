import { stopCauseOf } from '../../kernel/stop-causes.ts';
import type { ProgressAnchors } from './ports.ts';
import type { AgentName, IssueState } from './state.ts';

/**
 * The pipeline's progress people can watch: one checklist, the same in its Slack message and
 * in its issue comment, each edited in place as stages start and end (the stage, the attempt,
 * the build's results, the review's verdict, the pull request's link).
 */

type Flavour = 'slack' | 'github';

const link = (url: string, text: string, flavour: Flavour) =>
  flavour === 'slack' ? `<${url}|${text}>` : `[${text}](${url})`;
const bold = (text: string, flavour: Flavour) => (flavour === 'slack' ? `*${text}*` : `**${text}**`);

const STAGES: readonly AgentName[] = ['triage', 'analyst', 'writer', 'build', 'reviewer', 'committer'];
const TITLES: Record<AgentName, string> = {
  triage: 'Triage',
  analyst: 'Analyst',
  writer: 'Writer',
  build: 'Build',
  reviewer: 'Reviewer',
  committer: 'Committer',
};

function done(state: IssueState, stage: AgentName): boolean {
  switch (stage) {
    case 'triage':
      return state.triage.completed;
    case 'analyst':
      return state.analysis.completed;
    case 'writer':
      return state.writer.completed;
    case 'build':
      return state.build.completed;
    case 'reviewer':
      return state.review.completed;
    case 'committer':
      return state.commit.completed;
  }
}

function detail(state: IssueState, stage: AgentName, flavour: Flavour): string {
  switch (stage) {
    case 'triage':
      return state.triage.completed
        ? `${state.issue.type ?? ''} · scope ${state.triage.scope} · ${state.triage.complexity}${state.triage.should_proceed ? '' : ' · stopped'}`
        : '';
    case 'analyst':
      return state.analysis.completed ? `${state.analysis.files.length} file(s) to change` : '';
    case 'writer':
      return state.pipeline.attempt > 0
        ? `attempt ${state.pipeline.attempt} of ${state.pipeline.max_attempts}`
        : '';
    case 'build':
      if (!state.build.completed) return '';
      return state.build.commands_run
        .map(
          (c) =>
            `${c.command} ${c.exit_code === 0 ? 'passed' : c.pre_existing ? 'failed (pre-existing)' : 'failed'}${c.source ? ` (${c.source})` : ''}`,
        )
        .join(' · ');
    case 'reviewer':
      return state.review.verdict ?? '';
    case 'committer':
      return state.commit.pr_url ? link(state.commit.pr_url, 'pull request', flavour) : '';
  }
}

const STATUS: Record<IssueState['pipeline']['status'], string> = {
  in_progress: 'in progress',
  completed: 'done',
  failed: 'failed',
  blocked: 'blocked',
};

/** The checklist, in Slack's mrkdwn or GitHub's Markdown. */
function renderProgress(state: IssueState, flavour: Flavour): string {
  const { pipeline, issue } = state;
  const running = pipeline.status === 'in_progress';
  const lines = STAGES.map((stage) => {
    const current = running && pipeline.current_agent === stage && !done(state, stage);
    const mark = done(state, stage) ? '✅' : current ? '⏳' : '⬜';
    const more = detail(state, stage, flavour);
    return `${mark} ${TITLES[stage]}${more ? `: ${more}` : ''}`;
  });
  const reason = pipeline.blocked_reason ?? pipeline.failure_reason ?? state.triage.rejection_reason;
  return [
    `${bold('Issue pipeline', flavour)} for ${link(issue.url, `#${issue.number} ${issue.title}`, flavour)}: ${bold(STATUS[pipeline.status], flavour)}`,
    ...lines,
    ...(pipeline.status !== 'in_progress' && reason ? [`Reason: ${reason}`] : []),
  ].join('\n');
}

/** A failure as a Catch records it (`Cause` may be absent). */
export interface PipelineFailure {
  readonly Error?: string | undefined;
  readonly Cause?: string | undefined;
}

/**
 * What people are told when the pipeline stopped on an error after its retries: which issue
 * (linked), whether its model could not serve it (it stayed unavailable or refused the calls)
 * or something else failed, the error and its cause, and that a developer needs to look.
 */
export function failureNotice(state: IssueState, failure: PipelineFailure, flavour: Flavour): string {
  const { issue } = state;
  const cause = (failure.Cause ?? '').replace(/\s+/g, ' ').trim();
  const short = cause.length <= 300 ? cause : `${cause.slice(0, 299)}…`;
  const what = `${failure.Error ?? 'an unknown error'}${short ? `: ${short}` : ''}`;
  const stop = stopCauseOf(failure);
  const why =
    stop === 'model_unavailable' || stop === 'model_refused'
      ? 'stopped because its model could not serve it'
      : 'stopped on an internal error after its retries';
  return (
    `:warning: The issue pipeline for ${link(issue.url, `#${issue.number} ${issue.title}`, flavour)} ${why} (${what}). ` +
    'Nothing more will happen on its own: a developer needs to look at it, then label the issue again or run /fix to start over.'
  );
}

/** Where the summary goes: the Slack message and the issue comment, created once, then edited. */
export interface ProgressSurfaces {
  postSlack(channel: string, text: string): Promise<{ channel: string; ts: string }>;
  updateSlack(channel: string, ts: string, text: string): Promise<void>;
  replySlack(channel: string, threadTs: string, text: string): Promise<void>;
  createComment(body: string): Promise<number>;
  updateComment(id: number, body: string): Promise<void>;
}

/** Shows the summary in both places (and says `say` in both, when given); returns where they are. */
export async function showProgress(
  state: IssueState,
  anchors: ProgressAnchors,
  channel: string,
  surfaces: ProgressSurfaces,
  say?: string | { readonly slack: string; readonly github: string },
): Promise<ProgressAnchors & { slack: { channel: string; ts: string } }> {
  const slackText = renderProgress(state, 'slack');
  let slack = anchors.slack;
  if (slack === undefined) slack = await surfaces.postSlack(channel, slackText);
  else await surfaces.updateSlack(slack.channel, slack.ts, slackText);
  const body = renderProgress(state, 'github');
  let commentId = anchors.commentId;
  if (commentId === undefined) commentId = await surfaces.createComment(body);
  else await surfaces.updateComment(commentId, body);
  if (say !== undefined) {
    await surfaces.replySlack(slack.channel, slack.ts, typeof say === 'string' ? say : say.slack);
    await surfaces.createComment(typeof say === 'string' ? say : say.github);
  }
  return { slack, commentId };
}
