import { getSlackSecret } from '../../../adapters/secrets.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { ENV } from '../../../shared/env.ts';
import { createLogger } from '../../../shared/logger.ts';
import { withFeedback } from '../../../slack/templates/feedback.ts';
import { createSlackProgress } from '../adapters/slack-progress.ts';
import { ProgressInput, type ProgressOutput } from '../contract.ts';
import { failureNotice, showProgress } from '../progress.ts';
import { github, issueStateStore } from './wiring.ts';

let slack: ReturnType<typeof createSlackProgress> | undefined;

/**
 * "Show progress": the pipeline's one Slack message and one issue comment, created once and
 * edited in place; with `say` (or `failure`: the error that stopped it, with the issue's link),
 * a line in the message's thread and a comment on the issue. The
 * message's thread is the pipeline's: developers' replies there reach it.
 */
export const handler = taskHandler({
  task: 'IssueProgress',
  schema: ProgressInput,
  logger: createLogger('issue-progress'),
  run: async (input): Promise<ProgressOutput> => {
    if (slack === undefined) {
      const { botToken } = await getSlackSecret();
      const slackApiUrl = process.env[ENV.slackApiUrl];
      slack = createSlackProgress({ token: botToken, ...(slackApiUrl ? { slackApiUrl } : {}) });
    }
    const surface = slack;
    const store = issueStateStore();
    const state = await store.load(input.conversationId);
    const anchors = await store.progress(input.conversationId);
    const { octokit, repository } = await github();
    const issue = { ...repository, issue_number: state.issue.number };
    const shown = await showProgress(
      state,
      anchors,
      input.channel,
      {
        postSlack: (channel, text) => surface.post(channel, text),
        // Once it links the pull request, the checklist announces it: people rate it there.
        updateSlack: (channel, ts, text) =>
          surface.update(
            channel,
            ts,
            text,
            state.commit.pr_url ? withFeedback({ text }, 'pull_request') : undefined,
          ),
        replySlack: (channel, ts, text) => surface.reply(channel, ts, text),
        createComment: async (body) => (await octokit.rest.issues.createComment({ ...issue, body })).data.id,
        updateComment: async (comment_id, body) => {
          await octokit.rest.issues.updateComment({ ...repository, comment_id, body });
        },
      },
      input.failure === undefined
        ? input.say
        : {
            slack: failureNotice(state, input.failure, 'slack'),
            github: failureNotice(state, input.failure, 'github'),
          },
    );
    if (anchors.slack === undefined) {
      const kernel = kernelDeps().store;
      const conversation = await kernel.getConversation(input.conversationId);
      // Developers' replies in the message's thread reach the pipeline (their role verified by the Router).
      await kernel.linkThread({
        conversationId: input.conversationId,
        ownerId: conversation?.ownerId ?? 'unknown',
        anchor: {
          name: 'pipeline',
          channel: shown.slack.channel,
          threadTs: shown.slack.ts,
          ownerRole: null,
          othersRole: 'developer',
        },
      });
    }
    if (anchors.slack === undefined || anchors.commentId === undefined) {
      await store.setProgress(input.conversationId, shown);
    }
    return { channel: shown.slack.channel, threadTs: shown.slack.ts };
  },
  summary: (input, output) => ({ ...output, said: input.say !== undefined }),
});
