import { eventually } from '../support/eventually.ts';

/**
 * What examples.test.ts looks up in the sandbox while it runs a page: which conversations are
 * the page's own (begun at what it sent, never at an earlier page's), the placeholders a page
 * leaves to the reader to look up (`<findings ts>`, `<n>`, ...), and when a person's reply in a
 * thread is due (once the bot has spoken there and ended its turn).
 */

interface Message {
  ts: string;
  bot?: boolean;
  bot_id?: string;
  text: string;
  thread_ts?: string;
  /** On a top-level message: the conversation whose thread it opens. */
  conversation_id?: string;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as T;
}

interface Conversation {
  id: string;
  anchors: { name: string; channel: string; threadTs: string }[];
}

/**
 * Where each page's conversations began: the Slack messages it posted at the top level
 * (`<channel> <ts>`) and the GitHub issues it opened (`github:<repo> <number>`), by the answers
 * the sandbox gave. Several pages post the same report to the same channel, and a page's work
 * goes on after its last command (its findings may come while the next page runs): what a page
 * looks up must come from its own conversations, never from an earlier page's.
 */
export const origins = new Map<string, Set<string>>();

/** The origin a request's answer names, if it starts a conversation there. */
export function originOf(command: string, body: string): string | undefined {
  const answer = (() => {
    try {
      return JSON.parse(body) as { ts?: string; number?: number };
    } catch {
      return {};
    }
  })();
  if (command.includes('/sandbox/slack/post') && !/"thread_ts"/.test(command) && answer.ts) {
    const channel = /"channel"\s*:\s*"(\w+)"/.exec(command)?.[1];
    return channel && `${channel} ${answer.ts}`;
  }
  if (command.includes('/sandbox/github/issues') && answer.number !== undefined) {
    const repo = /"repo"\s*:\s*"([\w./-]+)"/.exec(command)?.[1];
    return repo && `github:${repo} ${answer.number}`;
  }
  return undefined;
}

/** What a page's lookups need: the sandbox, and what was there before the page began. */
export interface PageRun {
  base: string;
  page: string;
  /** The conversations the sandbox had when the page began. */
  before: Set<string>;
  /** What the page bound so far (`<findings ts>` for the pull request's link). */
  bound: Map<string, string>;
  /** The sandbox's work so far: a wait on it fails when it stops working, not when it is slow. */
  progress: () => number | undefined | Promise<number | undefined>;
}

export async function conversationsOf(base: string): Promise<Conversation[]> {
  return (await getJson<{ conversations: Conversation[] }>(`${base}/sandbox/conversations`)).conversations;
}

/**
 * The page's conversations so far: those begun at something the page sent, and those begun
 * while it ran at something no earlier page sent (a slash command or an alarm names no origin
 * in its answer).
 */
async function pageConversations(run: PageRun): Promise<Set<string>> {
  const own = origins.get(run.page) ?? new Set<string>();
  const earlier = new Set(
    [...origins].filter(([page]) => page !== run.page).flatMap(([, sent]) => [...sent]),
  );
  const mine = (await conversationsOf(run.base)).filter((c) => {
    const at = c.anchors.map((a) => `${a.channel} ${a.threadTs}`);
    if (at.some((a) => own.has(a))) return true;
    return !run.before.has(c.id) && !at.some((a) => earlier.has(a));
  });
  return new Set(mine.map((c) => c.id));
}

/** The newest top-level message the bot posted in a channel for one of the page's conversations. */
async function newestBotMessage(run: PageRun, channel: string, accept: (m: Message) => boolean) {
  const found = await eventually(
    async () => {
      const mine = await pageConversations(run);
      const { messages } = await getJson<{ messages: Message[] }>(
        `${run.base}/sandbox/slack/messages?channel=${channel}`,
      );
      return messages.filter(
        (m) =>
          (m.bot || m.bot_id !== undefined) &&
          m.conversation_id !== undefined &&
          mine.has(m.conversation_id) &&
          accept(m),
      );
    },
    (messages) => messages.length > 0,
    `a bot message in ${channel}`,
    // A whole agent turn on `npm run dev`'s settings, while the suite's first files start beside it
    // on a cold clone, can take minutes: the wait fails only when the sandbox stops working.
    { stallMs: 60_000, intervalMs: 250, progress: run.progress },
  );
  return found.at(-1)?.ts ?? '';
}

/**
 * Placeholders a page leaves to the reader to look up, by page: where the reader would find them,
 * for the page's own conversations. `<n>` is the pull request on the bug page, whose link the bot
 * posts in the findings thread (the number on the pipeline page is bound by its answer
 * comment).
 */
export const LOOKUPS: Record<string, (run: PageRun) => Promise<string>> = {
  'findings ts': (run) => newestBotMessage(run, 'C_BUG_SUMMARIES', (m) => m.text.startsWith('Bug findings')),
  'incident ts': (run) => newestBotMessage(run, 'C_INCIDENTS', () => true),
  name: async (run) => {
    const found = await eventually(
      async () => {
        const mine = await pageConversations(run);
        const { executions } = await getJson<{ executions: Array<{ name: string }> }>(
          `${run.base}/sandbox/executions`,
        );
        // A conversation's executions are named after it (a continuation adds a suffix).
        return executions.filter((e) => [...mine].some((id) => e.name === id || e.name.startsWith(`${id}-`)));
      },
      (executions) => executions.length > 0,
      'an execution',
    );
    // Newest first, as the sandbox lists them.
    return found[0]?.name ?? '';
  },
  n: async (run) => {
    if (!run.page.endsWith('bug-investigation.md'))
      throw new Error(`${run.page}: <n> is not bound by an answer`);
    const findings = run.bound.get('findings ts');
    if (findings === undefined) throw new Error(`${run.page}: <n> is looked up in the findings thread`);
    const link = await eventually(
      async () => {
        const { messages } = await getJson<{ messages: Message[] }>(
          `${run.base}/sandbox/slack/messages?channel=C_BUG_SUMMARIES&thread_ts=${findings}`,
        );
        const links = messages
          .filter((m) => m.bot || m.bot_id !== undefined)
          .flatMap((m) => [...m.text.matchAll(/\/pulls?\/(\d+)/g)].map((match) => match[1] ?? ''));
        return links.at(-1);
      },
      (number) => number !== undefined,
      'the pull request',
      { stallMs: 60_000, intervalMs: 250, progress: run.progress },
    );
    return link ?? '';
  },
};

/**
 * A person answers in a thread once the bot has spoken there: before a post into a thread, wait
 * until the thread's newest message is the bot's (its question, its findings, its hand-over).
 */
export async function replyWhenAsked(command: string, run: PageRun) {
  const { base, progress } = run;
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
    { stallMs: 60_000, intervalMs: 250, progress },
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
    { stallMs: 60_000, intervalMs: 250, progress },
  );
}
