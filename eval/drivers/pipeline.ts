import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { DynamoIssueStateStore } from '../../lambdas/workflows/issue-pipeline/adapters/dynamo-issue-state.ts';
import type { IssueState } from '../../lambdas/workflows/issue-pipeline/state.ts';
import type { PipelineCase } from '../cases/pipeline.ts';
import { gradePipeline } from '../graders/pipeline.ts';
import { REPOS } from '../repos/repos.ts';
import { poll, type Session } from '../session.ts';
import { verdictOf } from '../types.ts';
import { gradePullRequest, plant } from './bug.ts';
import type { DriverRun } from './driver.ts';
import { executionFailure, withFault } from './faults.ts';

/**
 * An issue pipeline case: the bug planted, an issue labelled `agent` opened on the repository
 * (the emulator sends the signed webhook), then the pipeline on its own until it ends. Graded
 * by the hidden tests on the pull request's branch, and the reviewer's issues by the judge.
 */

export const pipelineConfig = (c: PipelineCase) => ({
  issuePipeline: {
    repository: `${REPOS[c.bug.repo].owner}/${REPOS[c.bug.repo].name}`,
    ...(c.bug.repo === 'invoicing' ? { build: { commands: { test: REPOS.invoicing.full } } } : {}),
  },
});

/**
 * What the pipeline waits for people on, if it does: an agent's question to people, or an
 * approval a person must give. An eval has no people to answer, so the case ends there instead
 * of waiting out the pipeline's (scaled) wait for them.
 */
export function waitsForPeople(state: IssueState): string | undefined {
  const question = state.communication.questions.find((q) => q.to === 'people' && !q.answered);
  if (question) return `the ${question.from} asked people: ${question.question}`;
  const escalation = state.communication.escalations.find((e) => e.requires_human && !e.resolved);
  return escalation ? `the ${escalation.agent} waits for a person: ${escalation.reason}` : undefined;
}

export async function runPipelineCase(
  session: Session,
  c: PipelineCase,
  deadline: number,
): Promise<DriverRun> {
  const { sha: baseSha } = await plant(session, c.bug);
  const { owner, name } = REPOS[c.bug.repo];
  const started = Date.now();
  const response = await fetch(`${session.sandbox.url}/sandbox/github/issues`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      repo: `${owner}/${name}`,
      title: c.issue.title,
      body: c.issue.body,
      labels: ['agent'],
    }),
  });
  if (!response.ok)
    throw new Error(`opening the issue answered ${response.status}: ${await response.text()}`);
  const { number } = (await response.json()) as { number: number };
  const id = conversationIdFor('issue_pipeline', `github:${owner}/${name}`, String(number));
  const documents = new DynamoIssueStateStore({
    client: session.sandbox.dynamodb,
    tableName: session.sandbox.tableName,
  });
  let analysedAt: number | undefined;
  const final = await poll(
    async () => {
      const state = await documents.load(id);
      if (state.analysis.completed) analysedAt ??= Date.now();
      return state.pipeline.status !== 'in_progress' ||
        executionFailure(session, id) ||
        waitsForPeople(state) !== undefined
        ? state
        : undefined;
    },
    deadline,
    500,
  );
  const endMs = Date.now() - started;
  const graded = Date.now();
  const state: IssueState | undefined = final ?? (await documents.load(id).catch(() => undefined));
  const waitingFor = final === undefined ? undefined : waitsForPeople(final);
  const checks = await gradePipeline(
    c,
    {
      ended: final !== undefined && waitingFor === undefined,
      ...(state ? { status: state.pipeline.status } : {}),
      ...(waitingFor === undefined ? {} : { waitingFor }),
      pullRequest: await gradePullRequest(session, c.bug, baseSha),
      issues: state?.review.findings.issues ?? [],
    },
    session.judge,
  );
  return {
    verdict: verdictOf(withFault(session, id, analysedAt !== undefined, checks)),
    ...(analysedAt ? { firstAnswerMs: analysedAt - started } : {}),
    endMs,
    conversationIds: [id],
    gradingMs: Date.now() - graded,
  };
}
