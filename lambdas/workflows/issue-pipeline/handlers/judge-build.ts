import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CodeBuildClient } from '@aws-sdk/client-codebuild';
import type { BuildResults } from '../../../builds/contract.ts';
import { readBuildResults } from '../../../builds/read-build.ts';
import { codeBuildTestReports, type ReadTestReport } from '../../../builds/read-test-report.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';
import { readCodeToolsConfig } from '../../../tools/code/config.ts';
import { judgeBuild, needsBase } from '../build-judge.ts';
import { JudgeBuildInput } from '../contract.ts';
import { BranchResultsMissingError } from '../errors.ts';
import { issueStateStore } from './wiring.ts';

let logs: CloudWatchLogsClient | undefined;
let tests: ReadTestReport | undefined;

/**
 * "Judge build": the change's checks from the build's log, against the base commit's (built
 * once per base commit and cached); then the reviewer, or the writer with the failures.
 */
export const handler = taskHandler({
  task: 'IssueJudgeBuild',
  schema: JudgeBuildInput,
  logger: createLogger('issue-judge-build'),
  run: async (input) => {
    logs ??= new CloudWatchLogsClient({});
    tests ??= codeBuildTestReports(new CodeBuildClient({}));
    const store = issueStateStore();
    const { repository } = readCodeToolsConfig();
    const repo = `${repository.owner}/${repository.repo}`;
    // The commit built travels with its results: kept while the base builds, then with the verdict.
    const results: BuildResults = { ...(await readBuildResults(input, logs, tests)), headSha: input.headSha };
    const state = await store.load(input.conversationId);
    let branch = results;
    if (input.kind === 'base') {
      await store.saveBaseline(repo, { sha: input.baseSha, results });
      const kept = await store.branchResults(input.conversationId);
      if (kept === undefined) throw new BranchResultsMissingError(input.conversationId);
      branch = kept;
    }
    const base = (await store.baseline(repo, input.baseSha))?.results;
    if (input.kind === 'branch' && needsBase(branch, base)) {
      await store.keepBranchResults(input.conversationId, branch);
      return { next: 'build_base' as const, attempt: input.attempt, notes: [] };
    }
    const judged = judgeBuild(state, branch, base);
    await store.save(input.conversationId, judged.state);
    return judged.handOff;
  },
  summary: (input, output) => ({ kind: input.kind, attempt: input.attempt, next: output.next }),
});
