/**
 * Ingress benchmark: bundle size and in-process latency of our ingress Lambda against the
 * same door built with Slack Bolt's AwsLambdaReceiver (bench/bolt-ingress.ts).
 * Prints figures; it is not a test and asserts nothing. Run: `npm run bench:ingress`.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import { computeSlackSignature } from '../lambdas/ingress/verify-slack-request.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist', 'bench');
const EVENTS = 10_000;
const WARM_UP = 1_000;
const SIGNING_SECRET = 'bench-signing-secret-0123456789abcdef';
const BOT_USER_ID = 'UBOTBENCH';

type Response = { statusCode?: number; body?: string };
type Handler = (event: unknown, context?: unknown) => Promise<Response>;

// ---- build -----------------------------------------------------------------------------

/** What NodejsFunction runs for our functions (infra/constructs/kernel-function.ts), minus source maps. */
const NODEJS_FUNCTION: BuildOptions = {
  bundle: true,
  minify: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'error',
};
/** NodejsFunction's default for Node 18+ runtimes (the runtime ships SDK v3); shown for reference. */
const SDK_EXTERNAL = ['@aws-sdk/*'];

interface Bundle {
  file: string;
  bytes: number;
  /** Minified bytes contributed by each package (or by our own top-level folder). */
  byPackage: [string, number][];
}

async function bundle(
  entry: string,
  outName: string,
  external: string[],
  plugins: Plugin[] = [],
): Promise<Bundle> {
  const file = join(OUT_DIR, outName);
  const result = await build({
    ...NODEJS_FUNCTION,
    entryPoints: [join(ROOT, entry)],
    outfile: file,
    external,
    plugins,
    metafile: true,
  });
  return { file, bytes: statSync(file).size, byPackage: contributions(result.metafile) };
}

function contributions(metafile: Metafile): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? `${path.split('/')[0]}/ (ours)`;
      totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

// ---- requests --------------------------------------------------------------------------

/** A fresh Events API message, signed now, as a Function URL delivers it. */
function signedMessageEvent(i: number, tag: string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const ts = `${1_735_689_600 + i}.${String(i % 1_000_000).padStart(6, '0')}`;
  const body = JSON.stringify({
    token: 'deprecated',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: `Ev${tag}${i}`,
    event_time: Number(timestamp),
    event: {
      type: 'message',
      channel: 'C0001',
      channel_type: 'channel',
      user: 'U0001',
      text: `message ${i}: the nightly export failed again with a 502 from the reporting service`,
      ts,
      event_ts: ts,
    },
  });
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': computeSlackSignature(SIGNING_SECRET, timestamp, body),
    },
    requestContext: { http: { method: 'POST', path: '/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' } },
    body,
    isBase64Encoded: false,
  };
}

// ---- timing ----------------------------------------------------------------------------

async function timeOne(handler: Handler, event: unknown, latencies: number[] | undefined): Promise<void> {
  const start = process.hrtime.bigint();
  const response = await handler(event, {});
  const elapsed = process.hrtime.bigint() - start;
  if (response.statusCode !== 200)
    throw new Error(`expected 200, got ${response.statusCode}: ${response.body}`);
  latencies?.push(Number(elapsed) / 1e6);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

function summary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const mean = latencies.reduce((sum, x) => sum + x, 0) / latencies.length;
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Discards stdout while `run` runs: our handler writes one INFO JSON line per event (Bolt none). */
async function withStdoutDiscarded<T>(run: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
  }
}

// ---- main ------------------------------------------------------------------------------

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => value.toFixed(3).padStart(8);
const row = (cells: string[], widths: number[]) =>
  cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  Object.assign(process.env, {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_BOT_USER_ID: BOT_USER_ID,
    INBOX_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/inbox.fifo',
    // The table holds only envelopes too large for SQS; the benchmark's messages never reach it.
    TABLE_NAME: 'bench-conversations',
    // The benchmark sends message events only: no slash command is registered.
    SLASH_COMMANDS: '[]',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    LOG_LEVEL: 'INFO',
  });

  // As the stack deploys it: the AWS SDK bundled from the lockfile (externalModules: []).
  const ours = await bundle('lambdas/handlers/ingress.ts', 'ingress.mjs', []);
  const bolt = await bundle('bench/bolt-ingress.ts', 'bolt-ingress.mjs', []);
  const oursSdkExternal = await bundle(
    'lambdas/handlers/ingress.ts',
    'ingress-sdk-external.mjs',
    SDK_EXTERNAL,
  );
  const sizeRatio = ours.bytes / bolt.bytes;

  console.log('\nBundle size: esbuild 0.28, bundle + minify, platform node, target node22, ESM, as');
  console.log(
    'infra/constructs/kernel-function.ts deploys it (AWS SDK bundled, not taken from the runtime):\n',
  );
  const sizeWidths = [44, 12, 10];
  console.log(row(['', 'bytes', 'KB'], sizeWidths));
  console.log(row(['ours  (lambdas/handlers/ingress.ts)', String(ours.bytes), kb(ours.bytes)], sizeWidths));
  console.log(row(['Bolt  (bench/bolt-ingress.ts)', String(bolt.bytes), kb(bolt.bytes)], sizeWidths));
  console.log(
    row(
      ['ours / Bolt', sizeRatio.toFixed(3), `target <= 0.333: ${sizeRatio <= 1 / 3 ? 'met' : 'MISSED'}`],
      sizeWidths,
    ),
  );
  const top = ours.byPackage
    .slice(0, 4)
    .map(([name, bytes]) => `${name} ${kb(bytes)}`)
    .join(', ');
  console.log(`\nWhere our bytes come from: ${top}.`);
  console.log(
    `For reference, ours with @aws-sdk/* external (NodejsFunction's default, the runtime's SDK): ` +
      `${oursSdkExternal.bytes} bytes (${kb(oursSdkExternal.bytes)}), ${(oursSdkExternal.bytes / bolt.bytes).toFixed(3)} of Bolt.`,
  );

  // Our enqueue is the real SendMessageCommand path with SQSClient#send resolving at once:
  // Bolt does no enqueueing, so neither side pays for a network round trip.
  let sends = 0;
  Object.defineProperty(SQSClient.prototype, 'send', {
    configurable: true,
    writable: true,
    value: async () => {
      sends += 1;
      return { MessageId: `bench-${sends}`, $metadata: {} };
    },
  });

  // Timed: the SDK-external build, so its SQSClient is the one patched above (the code is the same).
  const oursHandler = ((await import(pathToFileURL(oursSdkExternal.file).href)) as { handler: Handler })
    .handler;
  const boltHandler = ((await import(pathToFileURL(bolt.file).href)) as { handler: Handler }).handler;

  const oursLatencies: number[] = [];
  const boltLatencies: number[] = [];
  await withStdoutDiscarded(async () => {
    for (let i = 0; i < WARM_UP; i++) {
      await timeOne(oursHandler, signedMessageEvent(i, 'warm-ours-'), undefined);
      await timeOne(boltHandler, signedMessageEvent(i, 'warm-bolt-'), undefined);
    }
    // Alternate the two, so that both see the same GC pressure and CPU state.
    for (let i = 0; i < EVENTS; i++) {
      await timeOne(oursHandler, signedMessageEvent(i, 'ours-'), oursLatencies);
      await timeOne(boltHandler, signedMessageEvent(i, 'bolt-'), boltLatencies);
    }
  });
  if (sends !== WARM_UP + EVENTS) throw new Error(`expected ${WARM_UP + EVENTS} enqueues, saw ${sends}`);

  const a = summary(oursLatencies);
  const b = summary(boltLatencies);
  console.log(
    `\nLatency per request, in process (Node ${process.versions.node}): ${EVENTS} freshly signed message events each,`,
  );
  console.log(`after ${WARM_UP} warm-up requests each; every response checked to be 200.\n`);
  const widths = [12, 9, 9, 9, 9];
  console.log(row(['', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'], widths));
  console.log(row(['ours', ms(a.p50), ms(a.p99), ms(a.mean), ms(a.max)], widths));
  console.log(row(['Bolt', ms(b.p50), ms(b.p99), ms(b.mean), ms(b.max)], widths));
  console.log(
    row(
      ['ours / Bolt', ms(a.p50 / b.p50), ms(a.p99 / b.p99), ms(a.mean / b.mean), ms(a.max / b.max)],
      widths,
    ),
  );
  console.log(`\nTarget our p99 < 5 ms: ${a.p99 < 5 ? 'met' : 'MISSED'} (${a.p99.toFixed(3)} ms).`);
  console.log(
    [
      '',
      'Notes:',
      `- Ours verified, parsed (zod), built and sent ${sends} SendMessageCommands; SQSClient#send`,
      '  was replaced by one that resolves at once, since Bolt enqueues nothing (it only acks).',
      '- Our handler logs one INFO JSON line per enqueued event (Powertools); stdout was discarded',
      '  during the timed runs for both, so the figures include formatting but not terminal I/O.',
      `- Bundles: ${relative(ROOT, OUT_DIR)}/ (git-ignored).`,
    ].join('\n'),
  );
}

await main();
