/**
 * What a test file pays for its sandbox in a warm process: RUNS sandboxes started one after
 * another (each stopped before the next, as files of one worker do), against one reusable
 * sandbox released and renewed RUNS times (local/sandbox.ts `startReusableSandbox`). Each
 * round posts one Slack message and waits until the first answer, so the handlers are loaded.
 * Prints wall time and this process's CPU time per round (the first round of each kind loads
 * what node_modules holds, so it is printed apart); asserts nothing.
 * Run: `npm run bench:sandbox-reuse` (RUNS=5 by default).
 */

import { freePort } from '../local/free-port.ts';
import { type ReusableSandbox, startReusableSandbox, startSandbox } from '../local/sandbox.ts';
import type { Sandbox, SandboxOptions } from '../local/sandbox-options.ts';
import { KERNEL_PROBE_MODULE } from '../statemachines/probe.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const CHANNEL = 'C_PROBE';
/**
 * One port for every sandbox: outside a test worker nothing re-evaluates the handler modules,
 * and a handler keeps the clients it built on first use, pointed at the first sandbox's port.
 */
const OPTIONS: SandboxOptions = {
  port: await freePort(),
  timeScale: 0.001,
  modules: [KERNEL_PROBE_MODULE],
  config: { channels: { probe: CHANNEL } },
  logLevel: (process.env.LOG_LEVEL as 'WARN' | undefined) ?? 'SILENT',
};

interface Round {
  readyMs: number;
  firstAnswerMs: number;
  cpuMs: number;
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Posts a report (as the console does) and resolves once the bot answered it in its thread. */
async function firstAnswer(sandbox: Sandbox): Promise<void> {
  const posted = await fetch(`${sandbox.url}/sandbox/slack/post`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel: CHANNEL, user: 'U_REPORTER', text: 'hello' }),
  });
  const { ts } = (await posted.json()) as { ts: string };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${sandbox.url}/sandbox/slack/messages?channel=${CHANNEL}&thread_ts=${ts}`);
    const { messages } = (await response.json()) as { messages: { bot?: boolean }[] };
    if (messages.some((m) => m.bot)) return;
    if (Date.now() > deadline) throw new Error('no answer within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function round(get: () => Promise<Sandbox>, end: (sandbox: Sandbox) => Promise<void>): Promise<Round> {
  const cpu = cpuMs();
  const started = performance.now();
  const sandbox = await get();
  const readyMs = performance.now() - started;
  const asked = performance.now();
  await firstAnswer(sandbox);
  const firstAnswerMs = performance.now() - asked;
  await end(sandbox);
  return { readyMs, firstAnswerMs, cpuMs: cpuMs() - cpu };
}

function print(label: string, rounds: Round[]): void {
  const [first, ...rest] = rounds;
  const line = (r: Round) =>
    `ready ${r.readyMs.toFixed(0)} ms, first answer ${r.firstAnswerMs.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms`;
  if (first) console.log(`${label}, first round: ${line(first)}`);
  if (rest.length === 0) return;
  const mean = (pick: (r: Round) => number) => rest.reduce((sum, r) => sum + pick(r), 0) / rest.length;
  console.log(
    `${label}, later rounds (${rest.length}, mean): ${line({
      readyMs: mean((r) => r.readyMs),
      firstAnswerMs: mean((r) => r.firstAnswerMs),
      cpuMs: mean((r) => r.cpuMs),
    })}`,
  );
}

const restarted: Round[] = [];
for (let i = 0; i < RUNS; i += 1)
  restarted.push(
    await round(
      () => startSandbox(OPTIONS),
      (sandbox) => sandbox.stop(),
    ),
  );
print('a new sandbox per file', restarted);

let reusable: ReusableSandbox | undefined;
const reused: Round[] = [];
for (let i = 0; i < RUNS; i += 1)
  reused.push(
    await round(
      async () => {
        if (reusable) return reusable.renew(OPTIONS);
        reusable = await startReusableSandbox(OPTIONS);
        return reusable.sandbox;
      },
      async () => {
        if (!(await reusable?.release())) throw new Error('the sandbox could not be released cleanly');
      },
    ),
  );
await reusable?.close();
print('one reusable sandbox', reused);
