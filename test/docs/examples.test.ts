import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/free-port.ts';
import { SANDBOX_NODE_FLAGS } from '../../local/node-flags.ts';
import { processCpuTicks } from '../../local/process-cpu.ts';
import { runProcess } from '../../local/process-host.ts';
import { DEVELOPMENT_SIGNING_SECRET, DEVELOPMENT_WEBHOOK_SECRETS } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { conversationsOf, LOOKUPS, originOf, origins, type PageRun, replyWhenAsked } from './page-lookups.ts';
import { answerBindings, placeholders, type ShellCommand, shellBlocks } from './shell-examples.ts';

/**
 * Every sandbox example in the README and docs/ works as written: each page's `bash` blocks run
 * in order, command by command, against `npm run dev`'s sandbox (local/main.ts, its port
 * changed), and every request must be answered 2xx. A placeholder such as `<report ts>` takes
 * what the page says the earlier command answers (`# -> {"ts":"<report ts>"}`), or, where the page
 * says to look it up, what the sandbox shows once the workflow got there (the findings' ts once
 * the page's findings are posted, the pull request once the bot links it in their thread): so
 * each page's story has to run.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = [
  'README.md',
  'docs/sandbox.md',
  'docs/workflows/bug-investigation.md',
  'docs/workflows/issue-pipeline.md',
  'docs/workflows/incident-investigation.md',
];

interface DevSandbox {
  url: string;
  process: ChildProcess;
  /** What the sandbox printed (its errors, at SANDBOX_LOG_LEVEL=ERROR): shown when a page fails. */
  output(): string;
}

/** `npm run dev` without the console build: the same entry point, settings and printed banner. */
async function startDev(): Promise<DevSandbox> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SANDBOX_LOG_LEVEL: 'ERROR' };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'SANDBOX_CONFIG', 'SANDBOX_TIME_SCALE'])
    delete env[name];
  // `tsx local/main.ts` as Node with tsx's loader: one process instead of tsx's launcher and its child.
  const child = spawn(process.execPath, [...SANDBOX_NODE_FLAGS, '--import', 'tsx', 'local/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`npm run dev exited ${child.exitCode}: ${output}`);
      return output;
    },
    (text) => text.includes('Sandbox listening on'),
    'the sandbox to listen',
    { stallMs: 60_000, intervalMs: 100, progress: () => processCpuTicks(child.pid) },
  ).catch((error: unknown) => {
    if (child.exitCode !== null) throw new Error(`npm run dev exited ${child.exitCode}: ${output}`);
    throw error;
  });
  return { url: `http://127.0.0.1:${port}`, process: child, output: () => output };
}

let dev: DevSandbox | undefined;
/**
 * The running sandbox's work (`GET /sandbox/activity`): a wait on it fails when it stops working,
 * not when it is slow. Not its CPU time: answering the waits' own requests takes CPU, so a page
 * waiting for something that never comes would keep that rising and never stall.
 */
const devProgress = async () => {
  if (dev === undefined) return undefined;
  const response = await fetch(`${dev.url}/sandbox/activity`).catch(() => undefined);
  return response?.ok ? ((await response.json()) as { count: number }).count : undefined;
};

/** Every sandbox process the file started. */
const children: ChildProcess[] = [];
/** Stopped and waited for: the file ends when its sandbox has. */
afterAll(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
});

/**
 * The pages run one after another against one sandbox, started by the first page (a start is
 * seconds of CPU, mostly loading modules): as a reader who keeps `npm run dev` running while
 * reading page after page. No page's story needs an empty sandbox, as long as what a page looks
 * up comes from its own conversations (`origins`). A sandbox that exited is replaced, so one
 * page's crash fails that page and not the pages after it.
 */
async function sandboxFor(): Promise<DevSandbox> {
  if (dev === undefined || dev.process.exitCode !== null) dev = await startDev();
  return dev;
}

const isRequest = (text: string) => /^\s*curl\b/.test(text);
const isAssignment = (text: string) => /^\s*\w+=/.test(text) && !/^\s*\w+=\S*\s+curl\b/.test(text);

/** Runs one command in bash with the block's earlier assignments; a request's status is checked. */
async function runCommand(command: ShellCommand, assignments: string[], base: string) {
  const port = new URL(base).port;
  const text = command.text.replaceAll('localhost:3000', `127.0.0.1:${port}`);
  const script = [
    'curl() { command curl --max-time 60 -w \'\\n%{http_code}\' "$@"; }',
    ...assignments,
    text,
  ].join('\n');
  const { stdout } = await runProcess('bash', ['-c', script]);
  if (!isRequest(command.text)) return undefined;
  const cut = stdout.lastIndexOf('\n');
  const status = Number(stdout.slice(cut + 1).trim());
  const body = stdout.slice(0, cut);
  expect(status, `${command.text}\n-> ${status} ${body.slice(0, 400)}`).toBeGreaterThanOrEqual(200);
  expect(status, `${command.text}\n-> ${status} ${body.slice(0, 400)}`).toBeLessThan(300);
  return body;
}

async function runPage(page: string) {
  const blocks = shellBlocks(readFileSync(join(ROOT, page), 'utf8')).filter((block) =>
    block.commands.some((c) => c.text.includes('localhost:3000')),
  );
  expect(blocks.length, `${page} has sandbox examples`).toBeGreaterThan(0);
  const started = await sandboxFor();
  try {
    const before = new Set((await conversationsOf(started.url)).map((c) => c.id));
    return await runStory(page, blocks, {
      base: started.url,
      page,
      before,
      bound: new Map(),
      progress: devProgress,
    });
  } catch (error) {
    const printed = started.output().trim().slice(-3_000);
    if (error instanceof Error && printed) error.message += `\n--- the sandbox printed:\n${printed}`;
    throw error;
  }
}

async function runStory(page: string, blocks: ReturnType<typeof shellBlocks>, run: PageRun) {
  const { base, bound } = run;
  const sent = new Set<string>();
  origins.set(page, sent);
  let requests = 0;
  for (const block of blocks) {
    const assignments: string[] = [];
    for (const command of block.commands) {
      if (!isRequest(command.text) && !isAssignment(command.text))
        throw new Error(
          `${page}:${block.line}: the examples test cannot run ${JSON.stringify(command.text)}`,
        );
      let text = command.text;
      for (const name of placeholders(text)) {
        const lookup = LOOKUPS[name];
        let value = bound.get(name);
        if (value === undefined && lookup) value = await lookup(run);
        if (value === undefined) throw new Error(`${page}:${block.line}: nothing says what <${name}> is`);
        bound.set(name, value);
        text = text.replaceAll(`<${name}>`, value);
      }
      await replyWhenAsked(text, run);
      const body = await runCommand({ ...command, text }, assignments, base);
      if (isAssignment(command.text)) assignments.push(command.text);
      if (body === undefined) continue;
      const origin = originOf(text, body);
      if (origin) sent.add(origin);
      requests++;
      for (const { placeholder, field } of answerBindings(command.answer ?? '')) {
        const value = (JSON.parse(body) as Record<string, unknown>)[field];
        expect(value, `${page}: the answer's ${field}`).toBeDefined();
        bound.set(placeholder, String(value));
      }
    }
  }
  return requests;
}

describe('the sandbox examples in the README and docs/', () => {
  it('knows the development secrets the pages use', () => {
    const pages = PAGES.map((page) => readFileSync(join(ROOT, page), 'utf8')).join('\n');
    for (const secret of pages.match(/sandbox-[\w-]+-not-for-production/g) ?? [])
      expect([DEVELOPMENT_SIGNING_SECRET, ...Object.values(DEVELOPMENT_WEBHOOK_SECRETS)]).toContain(secret);
  });

  for (const page of PAGES) {
    it(`${page}: every command works as written, in order`, async () => {
      expect(await runPage(page)).toBeGreaterThan(0);
    });
  }
});
