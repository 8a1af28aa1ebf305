import { type CloudWatchLogsClient, GetLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import * as z from 'zod';
import {
  doorRedactor,
  type RedactionSettings,
  type Redactor,
  redactionSettings,
} from '../redaction/index.ts';
import { type BuildFacts, buildResults, checkResults, overallStatus } from './build-results.ts';
import type { BuildResults, ChecksBuildOutcome, ReadBuildResultsInput } from './contract.ts';
import type { ReadTestReport } from './read-test-report.ts';

/** The fields of Step Functions' `Build` (PascalCase) this reads; the rest is ignored. */
const SfnBuild = z.object({
  Id: z.string().optional(),
  Arn: z.string().optional(),
  BuildStatus: z.string().optional(),
  Phases: z
    .array(
      z.object({
        PhaseType: z.string(),
        PhaseStatus: z.string().optional(),
        Contexts: z
          .array(z.object({ StatusCode: z.string().optional(), Message: z.string().optional() }))
          .optional(),
      }),
    )
    .optional(),
  Logs: z.object({ GroupName: z.string().optional(), StreamName: z.string().optional() }).optional(),
  ReportArns: z.array(z.string()).optional(),
});

/** Log pages read at most: 10 pages of up to 10,000 events is more than a capped build log holds. */
const MAX_PAGES = 10;

/**
 * Turns the finished checks builds (each `codebuild:startBuild.sync` Task's output, or the
 * `Cause` its Catch recorded) into per-check results. A check's verdict is its build's status
 * and phase statuses, as CodeBuild reports them; its command and origin are the definitions';
 * the build's CloudWatch log gives only the tail of each check's output, for people.
 *
 * The log and CodeBuild's messages are the code's and its environment's own words (a test that
 * prints a token, an error that names a database URL), and the results travel in the workflow's
 * state, which Step Functions keeps in its execution history: they pass the redaction layer as
 * they are read, keyed by the conversation, so every text of the results (tails, feedback,
 * summary, problem) says what failed with placeholders instead of the values.
 */
export async function readBuildResults(
  input: ReadBuildResultsInput,
  logs: CloudWatchLogsClient,
  readTests?: ReadTestReport,
  redaction: RedactionSettings = redactionSettings(),
): Promise<BuildResults> {
  const redactor = doorRedactor(input.conversationId, redaction);
  const builds = await Promise.all(input.builds.map((b) => buildFacts(b, logs, redactor)));
  const problems = builds.flatMap((b) => (b.problem === undefined ? [] : [`${b.check}: ${b.problem}`]));
  const ids = builds.flatMap((b) => (b.id === undefined ? [] : [b.id]));
  const checks = await checkResults(input.checks, builds);
  // Per-test results of a check whose runner writes a report, from CodeBuild's report API, where
  // they mean something: a check that ran to its end and failed (which tests, and whether the
  // base's red tests excuse them). A passed check's report decides nothing, so it is not read.
  for (const definition of input.checks) {
    const result = checks.find((c) => c.name === definition.name);
    const build = builds.find((b) => b.check === definition.name);
    if (definition.junitReport !== true || result === undefined || build?.id === undefined) continue;
    if (result.exitCode === undefined || result.exitCode === 0) continue;
    result.tests =
      readTests === undefined
        ? { status: 'missing', reason: 'no reader of CodeBuild reports was given' }
        : await readTests({ arn: build.arn, reportArns: build.reportArns ?? [] });
  }
  return buildResults({
    attempt: input.attempt,
    status: overallStatus(builds),
    buildId: ids[0],
    buildIds: ids,
    checks,
    problem: problems.length === 0 ? undefined : problems.join('\n'),
  });
}

/** One build's status, phases and log lines, its texts redacted. */
async function buildFacts(
  outcome: ChecksBuildOutcome,
  logs: CloudWatchLogsClient,
  redactor: Redactor,
): Promise<BuildFacts> {
  const redacted = async (text: string) => (await redactor.redact(text)).text;
  const build = outcome.output?.Build ?? buildOfCause(outcome.failure?.Cause);
  if (build === undefined) {
    const why = `${outcome.failure?.Error ?? 'unknown error'}: ${outcome.failure?.Cause ?? 'the build did not start'}`;
    return {
      check: outcome.check,
      status: 'NOT_STARTED',
      phases: [],
      lines: [],
      problem: await redacted(why),
    };
  }
  const parsed = SfnBuild.parse(build);
  // A Task that succeeded had a SUCCEEDED build (Step Functions fails the Task otherwise).
  const status = parsed.BuildStatus ?? (outcome.output?.Build ? 'SUCCEEDED' : 'FAILED');
  const phases = await Promise.all(
    (parsed.Phases ?? []).map(async (p) => {
      const message = p.Contexts?.map((c) => [c.StatusCode, c.Message].filter(Boolean).join(': ')).join('; ');
      return {
        type: p.PhaseType,
        status: p.PhaseStatus,
        message: message === undefined ? undefined : await redacted(message),
      };
    }),
  );
  const group = parsed.Logs?.GroupName;
  const stream = parsed.Logs?.StreamName;
  const lines = group && stream ? await redactedLines(await readLog(logs, group, stream), redactor) : [];
  // A build that ended before its commands ran: CodeBuild's reason (the source, the environment).
  const early = phases.find(
    (p) => p.status !== undefined && p.status !== 'SUCCEEDED' && !['INSTALL', 'BUILD'].includes(p.type),
  );
  const problem =
    early !== undefined
      ? `its build ended ${status} in ${early.type}${early.message ? `: ${early.message}` : ''}`
      : undefined;
  return {
    check: outcome.check,
    id: parsed.Id,
    arn: parsed.Arn,
    status,
    phases,
    lines,
    problem,
    reportArns: parsed.ReportArns,
  };
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

/**
 * The log's lines redacted as one text: one pass over the whole log instead of one per line, and
 * a value written over several lines (a private key) is seen whole. No finding spans a line
 * break into the next line's start (none takes a `[`), so CodeBuild's own lines stay as they were.
 */
async function redactedLines(lines: readonly string[], redactor: Redactor): Promise<string[]> {
  if (lines.length === 0) return [];
  const { text } = await redactor.redact(lines.map((line) => line.replace(/\n$/, '')).join('\n'));
  return text.split('\n');
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
