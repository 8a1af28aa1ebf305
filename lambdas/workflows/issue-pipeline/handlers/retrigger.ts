import { fifoQueueHandler } from '../../../handlers/fifo-batch.ts';
import { Retrigger } from '../../../kernel/retrigger.ts';
import { ENV } from '../../../shared/env.ts';
import { createLogger, createMetrics } from '../../../shared/logger.ts';
import { retriggerAnswer, retriggerMark } from '../retrigger.ts';
import { github, issueStateStore } from './wiring.ts';

const logger = createLogger('issue-retrigger');
const metrics = createMetrics('issue-retrigger');

async function answer(notice: Retrigger): Promise<void> {
  const store = issueStateStore();
  const state = await store.load(notice.conversationId);
  const anchors = await store.progress(notice.conversationId);
  const { octokit, repository } = await github();
  const issue = { ...repository, issue_number: state.issue.number };
  const mark = retriggerMark(notice.ts);
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { ...issue, per_page: 100 });
  if (comments.some((c) => c.body?.includes(mark))) {
    logger.info('the repeated trigger was already answered (a retried delivery)', {
      conversationId: notice.conversationId,
    });
    return;
  }
  const body = retriggerAnswer({ user: notice.user, ts: notice.ts, issueUrl: state.issue.url, anchors });
  await octokit.rest.issues.createComment({ ...issue, body });
  logger.info('answered a repeated trigger on the issue', {
    conversationId: notice.conversationId,
    issue: state.issue.number,
    user: notice.user,
  });
}

const RETRIGGERS = {
  schema: Retrigger,
  describe: 'repeated trigger',
  deadLetterQueueEnv: ENV.retriggerDeadLetterQueueUrl,
};

/**
 * "Already running": the Router hands it an issue labelled again while its pipeline runs (it
 * has no GitHub client); this answers on the issue with the pipeline's Slack thread and its
 * progress comment.
 */
export const handler = fifoQueueHandler(RETRIGGERS, answer, { logger, metrics });
