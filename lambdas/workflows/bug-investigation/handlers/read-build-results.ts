import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CodeBuildClient } from '@aws-sdk/client-codebuild';
import { ReadBuildResultsInput } from '../../../builds/contract.ts';
import { readBuildResults } from '../../../builds/read-build.ts';
import { codeBuildTestReports, type ReadTestReport } from '../../../builds/read-test-report.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { createLogger } from '../../../shared/logger.ts';

/** One client per execution environment (its endpoint from AWS_ENDPOINT_URL_CLOUDWATCH_LOGS offline). */
let logs: CloudWatchLogsClient | undefined;
let tests: ReadTestReport | undefined;

/** "Read build results": per-check exit codes and output tails from the build's log. */
export const handler = taskHandler({
  task: 'ReadBuildResults',
  schema: ReadBuildResultsInput,
  logger: createLogger('read-build-results'),
  run: (input) => {
    logs ??= new CloudWatchLogsClient({});
    tests ??= codeBuildTestReports(new CodeBuildClient({}));
    return readBuildResults(input, logs, tests);
  },
  summary: (_input, output) => ({ attempt: output.attempt, status: output.status, passed: output.passed }),
});
