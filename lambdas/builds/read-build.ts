import { type CloudWatchLogsClient, GetLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import * as z from 'zod';
import { buildResults, parseChecks } from './build-results.ts';
import type { BuildResults, ReadBuildResultsInput } from './contract.ts';

/** The fields of Step Functions' `Build` (PascalCase) this reads; the rest is ignored. */
const SfnBuild = z.object({
  Id: z.string().optional(),
  BuildStatus: z.string().optional(),
  Logs: z.object({ GroupName: z.string().optional(), StreamName: z.string().optional() }).optional(),
});

/** Log pages read at most: 10 pages of up to 10,000 events is more than a capped build log holds. */
const MAX_PAGES = 10;

/**
 * Turns a finished build (the `codebuild:startBuild.sync` Task's output, or the `Cause` its
 * Catch recorded) into per-check exit codes with the tail of each check's output, read from
 * the build's CloudWatch log.
 */
export async function readBuildResults(
  input: ReadBuildResultsInput,
  logs: CloudWatchLogsClient,
): Promise<BuildResults> {
  const build = input.output?.Build ?? buildOfCause(input.failure?.Cause);
  if (build === undefined) {
    return buildResults({
      attempt: input.attempt,
      status: 'NOT_STARTED',
      checks: [],
      problem: `${input.failure?.Error ?? 'unknown error'}: ${input.failure?.Cause ?? 'the build did not start'}`,
    });
  }
  const parsed = SfnBuild.parse(build);
  const status = parsed.BuildStatus ?? (input.output ? 'SUCCEEDED' : 'FAILED');
  const group = parsed.Logs?.GroupName;
  const stream = parsed.Logs?.StreamName;
  const lines = group && stream ? await readLog(logs, group, stream) : [];
  const checks = parseChecks(lines);
  const problem =
    checks.length === 0 && status !== 'SUCCEEDED'
      ? `the build ended ${status} before any check ran${lines.length ? `:\n${lines.slice(-20).join('\n')}` : ''}`
      : undefined;
  return buildResults({ attempt: input.attempt, status, buildId: parsed.Id, checks, problem });
}

/** The `{ Build }` a failed `.sync` Task carries as its Cause, if it does. */
function buildOfCause(cause: string | undefined): Record<string, unknown> | undefined {
  if (cause === undefined) return undefined;
  try {
    const parsed = z.object({ Build: z.record(z.string(), z.unknown()) }).safeParse(JSON.parse(cause));
    return parsed.success ? parsed.data.Build : undefined;
  } catch {
    // Not JSON: CodeBuild refused to start it (the Cause is its error message).
    return undefined;
  }
}

async function readLog(logs: CloudWatchLogsClient, group: string, stream: string): Promise<string[]> {
  const lines: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await logs.send(
      new GetLogEventsCommand({
        logGroupName: group,
        logStreamName: stream,
        startFromHead: true,
        ...(token === undefined ? {} : { nextToken: token }),
      }),
    );
    for (const event of answer.events ?? []) lines.push(event.message ?? '');
    // GetLogEvents answers the same forward token at the end of the stream.
    if (answer.nextForwardToken === undefined || answer.nextForwardToken === token) break;
    token = answer.nextForwardToken;
  }
  return lines;
}
