/**
 * `npm run feedback:export -- [--since <ISO time>] [--out <file>] [--table <name>]` writes the
 * feedback people gave on the agents' answers as JSON lines, one per feedback (the shape is
 * `FeedbackExportLine` in lambdas/feedback/model.ts), to `--out` or standard output. It reads
 * the conversations table (`--table`, or TABLE_NAME) through the AWS SDK, which takes its
 * credentials and region as usual and honours AWS_ENDPOINT_URL_DYNAMODB (the sandbox's).
 */
import { createWriteStream } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoFeedbackStore } from '../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import { FeedbackExportLine, toExportLine } from '../lambdas/feedback/model.ts';
import type { FeedbackStore } from '../lambdas/feedback/ports.ts';

const USAGE = 'usage: npm run feedback:export -- [--since <ISO time>] [--out <file>] [--table <table name>]';

export class FeedbackExportUsageError extends Error {
  override readonly name = 'FeedbackExportUsageError';
}

/** Writes each feedback given at or after `since` as one JSON line; returns how many. */
export async function exportFeedback(
  store: Pick<FeedbackStore, 'scan'>,
  write: (line: string) => void,
  since?: string,
): Promise<number> {
  let count = 0;
  for await (const record of store.scan(since)) {
    // The harness reads exactly this shape: checked here rather than found wrong there.
    write(`${JSON.stringify(FeedbackExportLine.parse(toExportLine(record)))}\n`);
    count += 1;
  }
  return count;
}

/** `--since` as the ISO time the records are compared with, or a usage error. */
export function parseSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new FeedbackExportUsageError(`--since is not a time: "${value}"`);
  return new Date(time).toISOString();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      since: { type: 'string' },
      out: { type: 'string' },
      table: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const tableName = values.table ?? process.env.TABLE_NAME;
  if (!tableName)
    throw new FeedbackExportUsageError(
      'no table: pass --table or set TABLE_NAME (the sandbox prints its table, and this whole command, when it starts)',
    );
  const since = parseSince(values.since);
  const store = new DynamoFeedbackStore({ client: new DynamoDBClient({}), tableName });
  const out = values.out === undefined ? process.stdout : createWriteStream(values.out, { encoding: 'utf8' });
  const count = await exportFeedback(store, (line) => out.write(line), since);
  if (out !== process.stdout)
    await new Promise<void>((resolve, reject) =>
      out.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  process.stderr.write(
    `feedback:export: ${count} feedback line(s)${values.out ? ` to ${values.out}` : ''}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `feedback:export: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`,
    );
    process.exitCode = 1;
  });
}
