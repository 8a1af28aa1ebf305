import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { type SavedGitHub, savedGitHubSchema } from './github/saved-store.ts';
import type { GitHubStore } from './github/store.ts';
import type { FakeSlack } from './slack/fake-slack.ts';
import {
  restoreWorkspace,
  type SavedWorkspace,
  savedWorkspaceSchema,
  saveWorkspace,
} from './slack/saved-workspace.ts';
import type { SavedQueue } from './sqs/fifo-queue.ts';
import type { SqsQueueService } from './sqs/queue-service.ts';
import { type ExecutionSnapshot, executionSnapshotSchema } from './stepfunctions/persisted-executions.ts';
import type { LocalStepFunctions } from './stepfunctions/runtime.ts';

/**
 * A sandbox that keeps its state across restarts (`npm run dev -- --state <dir>`, or the
 * `state` option of `startSandbox`). Each emulator keeps its state the smallest faithful way:
 *
 * - DynamoDB: dynalite's own LevelDB store in `<dir>/dynamodb/`, written as the tables are.
 * - The GitHub emulator's bare repositories live in `<dir>/github/`, written as they are pushed to.
 * - Step Functions, SQS, the fake Slack and the GitHub emulator's records live in memory: their
 *   state is written to `<dir>/sandbox-state.json` when the sandbox stops (after its work has
 *   settled) and read when it starts. Step Functions keeps every execution with its history; a
 *   running one runs on from the state it stood in, a wait with its task token and the time it
 *   already waited (local/stepfunctions/persisted-executions.ts). The queues keep their
 *   messages, deduplication window and sequence; Slack its messages, users and files
 *   (local/slack/saved-workspace.ts); GitHub its issues, pull requests, comments, reviews,
 *   labels, collaborators, users and sequences (local/github/saved-store.ts). A state file
 *   without GitHub records (written by a sandbox that did not keep them) starts GitHub from the
 *   demo seed.
 *
 * Not kept: GitHub's personal tokens and webhook deliveries, CodeBuild's builds, telemetry,
 * faults, and a Slack stream in progress.
 */

const STATE_FILE = 'sandbox-state.json';
/** The shape of the state file; a file of another version is refused rather than misread. */
export const STATE_FILE_VERSION = 1;

const queueSchema = z.object({
  name: z.string(),
  messages: z.array(z.object({ messageId: z.string(), body: z.string() }).passthrough()),
  deduplication: z.array(z.tuple([z.string(), z.object({}).passthrough()])),
  sequence: z.string().regex(/^\d+$/),
});

const stateFileSchema = z.object({
  version: z.literal(STATE_FILE_VERSION),
  savedAt: z.string(),
  stepFunctions: z.array(executionSnapshotSchema),
  queues: z.array(queueSchema),
  slack: savedWorkspaceSchema,
  // Absent from the files of sandboxes that did not keep GitHub: it then starts from the demo seed.
  github: savedGitHubSchema.optional(),
});

/** The state file's content (checked with `stateFileSchema` when read). */
export interface SavedSandboxState {
  readonly version: typeof STATE_FILE_VERSION;
  readonly savedAt: string;
  readonly stepFunctions: ExecutionSnapshot[];
  readonly queues: SavedQueue[];
  readonly slack: SavedWorkspace;
  readonly github?: SavedGitHub;
}

class SandboxStateError extends Error {
  override readonly name = 'SandboxStateError';
}

/** The directory's DynamoDB store (created with the directory). */
export function dynamoDbStorePath(dir: string): string {
  const path = join(resolve(dir), 'dynamodb');
  mkdirSync(path, { recursive: true });
  return path;
}

/** The directory's GitHub repositories (created with the directory). */
export function githubRepositoriesPath(dir: string): string {
  const path = join(resolve(dir), 'github');
  mkdirSync(path, { recursive: true });
  return path;
}

/** The saved state, or undefined when the directory has none yet (a first start). */
export function readSandboxState(dir: string): SavedSandboxState | undefined {
  const file = join(resolve(dir), STATE_FILE);
  if (!existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new SandboxStateError(`${file} is not JSON`, { cause });
  }
  const result = stateFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new SandboxStateError(
      `${file} is not a sandbox state of version ${STATE_FILE_VERSION}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      { cause: result.error },
    );
  }
  return result.data as unknown as SavedSandboxState;
}

export interface StatefulParts {
  readonly stepFunctions: LocalStepFunctions;
  readonly sqs: SqsQueueService;
  readonly slack: FakeSlack;
  readonly github: GitHubStore;
  /** Resolves true once no handler runs, false if some still do after `ms`. */
  handlersSettled(ms: number): Promise<boolean>;
  warn(line: string): void;
  /** A line for the terminal. */
  say(line: string): void;
}

/** How long a stop waits for the handlers still running to end before it saves the state. */
const SAVE_SETTLE_MS = 30_000;

/**
 * Saves the state once no handler runs (a Task whose handler still runs then runs again after
 * the restart): whole or not at all, a temporary file renamed over the last.
 */
export async function saveSandboxState(dir: string, parts: StatefulParts): Promise<SavedSandboxState> {
  if (!(await parts.handlersSettled(SAVE_SETTLE_MS))) {
    parts.warn('saving the sandbox state while handlers still run: their Tasks run again after the restart');
  }
  await parts.slack.settled();
  const state: SavedSandboxState = {
    version: STATE_FILE_VERSION,
    savedAt: new Date().toISOString(),
    stepFunctions: parts.stepFunctions.snapshot(),
    queues: [...parts.sqs.queuesByName().values()].map((queue) => queue.saved(parts.sqs.now())),
    slack: saveWorkspace(parts.slack),
    github: parts.github.saved(),
  };
  const file = join(resolve(dir), STATE_FILE);
  mkdirSync(resolve(dir), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
  const running = state.stepFunctions.filter((execution) => execution.status === 'RUNNING').length;
  parts.say(`state saved in ${dir}: ${state.stepFunctions.length} executions (${running} running)`);
  return state;
}

/**
 * Takes a saved state (`readSandboxState`) back into freshly built parts (the tables come back
 * on their own, GitHub's records as its emulator is built: `buildWorld`). What cannot come back
 * (a queue or channel this stack no longer has) is warned.
 */
export function restoreSandboxState(state: SavedSandboxState, parts: StatefulParts): void {
  const queues = parts.sqs.queuesByName();
  for (const saved of state.queues) {
    const queue = queues.get(saved.name);
    if (queue) queue.takeBack(saved);
    else if (saved.messages.length > 0)
      parts.warn(`sandbox state: queue ${saved.name} is gone, with ${saved.messages.length} message(s)`);
  }
  for (const message of restoreWorkspace(parts.slack, state.slack)) {
    parts.warn(`sandbox state: Slack message ${message} not restored: its channel is not configured`);
  }
  parts.stepFunctions.restore(state.stepFunctions);
  const running = state.stepFunctions.filter((execution) => execution.status === 'RUNNING').length;
  const github = state.github
    ? `${state.github.repos.length} GitHub repositories kept`
    : 'GitHub seeded anew (the state has none of it)';
  parts.say(`state restored (saved ${state.savedAt}): ${running} executions run on, ${github}`);
}
