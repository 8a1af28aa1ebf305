import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../local/free-port.ts';
import { processCpuTicks } from '../../local/process-cpu.ts';
import { runProcess } from '../../local/process-host.ts';
import { DEVELOPMENT_SIGNING_SECRET, DEVELOPMENT_WEBHOOK_SECRETS } from '../../local/sandbox-options.ts';
import { eventually } from '../support/eventually.ts';
import { answerBindings, placeholders, type ShellCommand, shellBlocks } from './shell-examples.ts';

/**
 * Every sandbox example in the README and docs/ works as written: each page's `bash` blocks run
 * in order, command by command, against `npm run dev`'s sandbox (local/main.ts, its port
 * changed), and every request must be answered 2xx. A placeholder such as `<report ts>` takes
 * what the page says the earlier command answers (`# -> {"ts":"<report ts>"}`), or, where the page
 * says to look it up, what the sandbox shows once the workflow got there (the findings' ts once
 * the findings are posted, the pull request once it is opened): so each page's story has to run.
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
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
/** The running sandbox's CPU time: a wait on it fails when it stops working, not when it is slow. */
const devProgress = () => processCpuTicks(dev?.process.pid);
afterEach(async () => {
  dev?.process.kill('SIGTERM');
  dev = undefined;
});

/** Every sandbox process the file started, the next page's included. */
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
});

/**
 * Each page runs against a fresh sandbox of its own, started when the page begins. (Starting the
 * next page's sandbox while a page runs saved seconds, but two sandboxes starting at once on a
 * cold template cache left the second one's bug scenario without findings: one at a time.)
 */
async function sandboxFor(_page: string): Promise<DevSandbox> {
  return startDev();
}

interface Message {
  ts: string;
  bot?: boolean;
  bot_id?: string;
  text: string;
  thread_ts?: string;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** The newest top-level message the bot posted in a channel, once there is one. */
async function newestBotMessage(base: string, channel: string, accept: (m: Message) => boolean) {
  const messages = await eventually(
    () => getJson<{ messages: Message[] }>(`${base}/sandbox/slack/messages?channel=${channel}`),
    (page) => page.messages.some((m) => (m.bot || m.bot_id !== undefined) && accept(m)),
    `a bot message in ${channel}`,
    // A whole agent turn on `npm run dev`'s settings, while the suite's first files start beside it
    // on a cold clone, can take minutes: the wait fails only when the sandbox stops working.
    { stallMs: 60_000, intervalMs: 250, progress: devProgress },
  );
  const mine = messages.messages.filter((m) => (m.bot || m.bot_id !== undefined) && accept(m));
  return mine.at(-1)?.ts ?? '';
}

/**
 * Placeholders a page leaves to the reader to look up, by page: where the reader would find them.
 * `<n>` is the pull request on the bug page (the number on the pipeline page is bound
 * by its answer comment).
 */
const LOOKUPS: Record<string, (base: string, page: string) => Promise<string>> = {
  'findings ts': (base) =>
    newestBotMessage(base, 'C_BUG_SUMMARIES', (m) => m.text.startsWith('Bug findings')),
  'incident ts': (base) => newestBotMessage(base, 'C_INCIDENTS', () => true),
  name: async (base) => {
    const { executions } = await eventually(
      () => getJson<{ executions: Array<{ name: string }> }>(`${base}/sandbox/executions`),
      (page) => page.executions.length > 0,
      'an execution',
    );
    return executions[0]?.name ?? '';
  },
  n: async (base, page) => {
    if (!page.endsWith('bug-investigation.md')) throw new Error(`${page}: <n> is not bound by an answer`);
    const repo = await eventually(
      () => getJson<{ pulls: Array<{ number: number }> }>(`${base}/sandbox/github/repos/demo/webshop`),
      (view) => view.pulls.length > 0,
      'the pull request',
      { stallMs: 60_000, intervalMs: 250, progress: devProgress },
    );
    return String(repo.pulls[0]?.number);
  },
};

/**
 * A person answers in a thread once the bot has spoken there: before a post into a thread, wait
 * until the thread's newest message is the bot's (its question, its findings, its hand-over).
 */
async function replyWhenAsked(command: string, base: string) {
  if (!command.includes('/sandbox/slack/post')) return;
  const channel = /"channel"\s*:\s*"(\w+)"/.exec(command)?.[1];
  const thread = /"thread_ts"\s*:\s*"([\d.]+)"/.exec(command)?.[1];
  if (!channel || !thread) return;
  await eventually(
    () =>
      getJson<{ messages: Message[] }>(
        `${base}/sandbox/slack/messages?channel=${channel}&thread_ts=${thread}`,
      ),
    (page) => {
      const last = page.messages.at(-1);
      return last !== undefined && (last.bot === true || last.bot_id !== undefined);
    },
    `the bot to speak in ${channel} ${thread}`,
    { stallMs: 60_000, intervalMs: 250, progress: devProgress },
  );
  // ...and has finished its turn (its first post may be an acknowledgement while it still works),
  // as a reader who waits for the bot's question would.
  await eventually(
    () =>
      getJson<{
        conversations: { agentTurnRunning?: boolean; anchors?: { channel: string; threadTs: string }[] }[];
      }>(`${base}/sandbox/conversations`),
    (page) =>
      !page.conversations.some(
        (c) => c.agentTurnRunning && c.anchors?.some((a) => a.channel === channel && a.threadTs === thread),
      ),
    `the bot's turn in ${channel} ${thread} to end`,
    { stallMs: 60_000, intervalMs: 250, progress: devProgress },
  );
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
  dev = await sandboxFor(page);
  const started = dev;
  try {
    return await runStory(page, blocks, started.url);
  } catch (error) {
    const printed = started.output().trim().slice(-3_000);
    if (error instanceof Error && printed) error.message += `\n--- the sandbox printed:\n${printed}`;
    throw error;
  }
}

async function runStory(page: string, blocks: ReturnType<typeof shellBlocks>, base: string) {
  const bound = new Map<string, string>();
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
        if (value === undefined && lookup) value = await lookup(base, page);
        if (value === undefined) throw new Error(`${page}:${block.line}: nothing says what <${name}> is`);
        bound.set(name, value);
        text = text.replaceAll(`<${name}>`, value);
      }
      await replyWhenAsked(text, base);
      const body = await runCommand({ ...command, text }, assignments, base);
      if (isAssignment(command.text)) assignments.push(command.text);
      if (body === undefined) continue;
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
