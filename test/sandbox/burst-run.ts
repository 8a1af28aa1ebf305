import { fakeStreams } from '../../local/slack/streams.ts';
import { submit } from '../support/scripted-model.ts';
import {
  ask,
  type BugHarness,
  bugIdFor,
  CHANNELS,
  promptOfTurn,
  REPORTER,
  readsHistory,
} from './bug-harness.ts';

/**
 * A burst into one thread: a bug report, the agent's question, then `size` answers from the
 * reporter sent back to back. Every turn of the agent asks again (one post per turn), so the
 * bot's posts after the burst count the turns the burst cost. Shared by the sandbox test and
 * `npm run bench:burst`.
 */
export interface BurstOutcome {
  bugId: string;
  /** The texts of the burst, in the order sent. */
  sent: string[];
  /** The prompts of the turns after the question (one per model request here). */
  prompts: string[];
  /** The bot's posts in the reporter's thread after the question: answers and progress messages. */
  posts: number;
  /** Of `posts`, the answers (one per turn). */
  answers: number;
  /**
   * Timelines shown while their turn worked and then replaced by its answer (deleted): not in
   * `posts`, since the thread no longer holds them.
   */
  replaced: number;
  /** Agent turns after the question. */
  turns: number;
  /** Milliseconds from the first message sent to the last one stored. */
  sendMs: number;
  /** Milliseconds from the first message sent to the last turn's post. */
  answeredMs: number;
}

/** The timelines of the thread the fake Slack deleted (answered `chat.delete` ok for). */
function replacedTimelines(h: BugHarness, thread: string): number {
  const { workspace } = h.sandbox.slack;
  const deleted = new Set(
    workspace
      .apiCalls('chat.delete')
      .filter((call) => call.outcome === 'ok')
      .map((call) => call.args.ts),
  );
  return fakeStreams(workspace).filter((stream) => stream.threadTs === thread && deleted.has(stream.ts))
    .length;
}

/** The script's supply of turns: more than a burst could ever cost, so it never runs out. */
const SPARE_TURNS = 250;

export async function runBurst(
  h: BugHarness,
  size: number,
  label: string,
  options: {
    /** Each turn after the question reads the history first: a tool call, so a timeline where progress is on. */
    toolCalls?: boolean;
  } = {},
): Promise<BurstOutcome> {
  const report = await h.post(CHANNELS.reports, REPORTER, `checkout fails (${label})`);
  const bugId = bugIdFor(report);
  const prompts: string[] = [];
  h.script(bugId, [
    submit(ask('Which browser do you use?')),
    ...Array.from({ length: SPARE_TURNS }, (_, i) => [
      ...(options.toolCalls ? [readsHistory(bugId)] : []),
      (request: Parameters<typeof promptOfTurn>[0]) => {
        prompts.push(promptOfTurn(request));
        return submit(ask(`Noted (${i + 1}). Anything else?`));
      },
    ]).flat(),
  ]);
  const botPosts = async () =>
    (await h.messages(CHANNELS.reports, report)).filter((m) => m.bot && !m.text.startsWith(':wave:'));
  const answers = async () => (await botPosts()).filter((m) => m.text.includes('Noted ('));
  await h.eventually(
    async () => ({ posts: await botPosts(), conversation: await h.store.getConversation(bugId) }),
    ({ posts, conversation }) => posts.length >= 1 && conversation?.wait !== undefined,
    `${bugId} to ask and wait`,
  );
  const before = (await botPosts()).length;

  const sent = Array.from({ length: size }, (_, i) => `burst ${label} line ${i + 1} of ${size}`);
  const started = Date.now();
  for (const text of sent) await h.post(CHANNELS.reports, REPORTER, text, report);
  const stored = await h.eventually(
    () => h.store.listMessages(bugId),
    (messages) => messages.filter((m) => m.text.startsWith(`burst ${label} `)).length === size,
    `all ${size} messages of the burst stored`,
  );
  const sendMs = Math.max(...stored.map((m) => Date.parse(m.receivedAt))) - started;
  // Done when every message of the burst went to a turn, and that turn has posted and waits again.
  await h.eventually(
    async () => ({
      messages: await h.store.listMessages(bugId),
      conversation: await h.store.getConversation(bugId, { consistent: true }),
      answered: (await answers()).length,
    }),
    ({ messages, conversation, answered }) =>
      messages.every((m) => m.senderType === 'bot' || m.deliveredInTurn !== undefined) &&
      conversation?.wait !== undefined &&
      answered === prompts.length,
    `every message of the burst delivered and answered`,
  );
  const answeredMs = Date.now() - started;
  return {
    bugId,
    sent,
    prompts,
    posts: (await botPosts()).length - before,
    answers: (await answers()).length,
    replaced: replacedTimelines(h, report),
    turns: prompts.length,
    sendMs,
    answeredMs,
  };
}
