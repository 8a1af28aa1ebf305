import { keptOn } from '../../lambdas/shared/kept.ts';
import { checkBlocks, checkTaskCard } from './block-limits.ts';
import { type FakeSlack, SlackApiError, type StoredSlackMessage } from './fake-slack.ts';
import { type SlackArgs, type SlackMethod, toApiMessage } from './methods.ts';
import { viewsOf } from './views.ts';

/**
 * Slack's streamed messages and assistant threads in the fake: `chat.startStream`,
 * `chat.appendStream`, `chat.stopStream` (chunks: `markdown_text`, `task_update`,
 * `plan_update`, `blocks`), and `assistant.threads.setStatus`, `setSuggestedPrompts`,
 * `setTitle`, with Slack's response shapes. Malformed chunks are refused (`invalid_chunks`)
 * and nothing is changed. A stream's message is a bot message whose blocks show what was
 * streamed so far (markdown, blocks, and the tasks as `task_card`s or one `plan`), so readers
 * of the workspace (the console, `conversations.replies`) see it as it grows.
 */

/** The most characters of `markdown_text` per call (chat.d.ts `MarkdownText`). */
export const MARKDOWN_TEXT_LIMIT = 12_000;

type Segment = { kind: 'markdown'; text: string } | { kind: 'blocks'; blocks: unknown[] } | { kind: 'tasks' };

export interface FakeStreamTask {
  id: string;
  title: string;
  status: string;
  output?: string;
  details?: string;
}

export interface FakeStream {
  channel: string;
  ts: string;
  threadTs: string;
  mode: 'timeline' | 'plan';
  state: 'in_progress' | 'completed';
  planTitle: string | undefined;
  tasks: FakeStreamTask[];
  segments: Segment[];
  /** Every call's chunks, in order (what tests assert). */
  calls: { method: string; chunks: Record<string, unknown>[] }[];
}

export interface FakeAssistantThread {
  channel: string;
  threadTs: string;
  status: string;
  loadingMessages: string[];
  /** Every status set, in order. */
  statuses: string[];
  title?: string;
  prompts?: { title: string; message: string }[];
}

const streamsOf = (slack: FakeSlack) =>
  keptOn(slack, 'fake-slack.streams', () => new Map<string, FakeStream>());
const threadsOf = (slack: FakeSlack) =>
  keptOn(slack, 'fake-slack.assistant-threads', () => new Map<string, FakeAssistantThread>());

/** The streams the bot started, oldest first. */
export function fakeStreams(slack: FakeSlack): FakeStream[] {
  return [...streamsOf(slack).values()];
}

/** What the app set on an assistant thread. */
export function fakeAssistantThread(
  slack: FakeSlack,
  channel: string,
  threadTs: string,
): FakeAssistantThread | undefined {
  return threadsOf(slack).get(`${channel}:${threadTs}`);
}

export const STREAM_METHODS: Record<string, SlackMethod> = {
  'chat.startStream': (slack, args) => {
    const channel = slack.channelId(required(args, 'channel'));
    const threadTs = required(args, 'thread_ts');
    const mode = optional(args, 'task_display_mode') ?? 'timeline';
    if (mode !== 'timeline' && mode !== 'plan')
      fail('invalid_arguments', 'task_display_mode must be timeline or plan');
    if (!channel.startsWith('D')) {
      // Outside a DM, Slack needs to know whom the stream is for.
      const user = optional(args, 'recipient_user_id');
      const team = optional(args, 'recipient_team_id');
      if (user === undefined) fail('missing_recipient_user_id', 'required outside a DM');
      if (team === undefined) fail('missing_recipient_team_id', 'required outside a DM');
      if (team !== slack.teamId) fail('team_not_found', team);
      slack.user(user);
    }
    const chunks = chunksOf(args);
    const stream: FakeStream = {
      channel,
      ts: '',
      threadTs,
      mode,
      state: 'in_progress',
      planTitle: undefined,
      tasks: [],
      segments: [],
      calls: [],
    };
    apply(stream, 'chat.startStream', chunks);
    const message = slack.postAsBot({
      channel,
      thread_ts: threadTs,
      text: textOf(stream),
      blocks: render(stream),
    });
    stream.ts = message.ts;
    streams(slack).set(`${channel}:${message.ts}`, stream);
    return { channel, ts: message.ts };
  },

  'chat.appendStream': (slack, args) => {
    const { stream, message } = openStream(slack, args);
    apply(stream, 'chat.appendStream', chunksOf(args));
    show(message, stream);
    return { channel: stream.channel, ts: stream.ts };
  },

  'chat.stopStream': (slack, args) => {
    const { stream, message } = openStream(slack, args);
    const given = args.chunks === undefined && args.markdown_text === undefined ? [] : chunksOf(args);
    const blocks =
      args.blocks === undefined ? undefined : checkBlocks(arrayArg(args, 'blocks', 'invalid_blocks'));
    apply(stream, 'chat.stopStream', given);
    if (blocks) stream.segments.push({ kind: 'blocks', blocks });
    stream.state = 'completed';
    show(message, stream);
    return {
      channel: stream.channel,
      ts: stream.ts,
      message: { ...toApiMessage(slack, message), streaming_state: 'completed' },
    };
  },

  'assistant.threads.setStatus': (slack, args) => {
    const thread = assistantThread(slack, args);
    const status = args.status;
    if (typeof status !== 'string') fail('invalid_arguments', 'missing required field: status');
    const loading =
      args.loading_messages === undefined ? [] : arrayArg(args, 'loading_messages', 'invalid_arguments');
    if (loading.some((m) => typeof m !== 'string' || m === ''))
      fail('invalid_arguments', 'loading_messages must be non-empty strings');
    thread.status = status;
    thread.loadingMessages = loading as string[];
    thread.statuses.push(status);
    return {};
  },

  'assistant.threads.setSuggestedPrompts': (slack, args) => {
    const thread = assistantThread(slack, args, false);
    const prompts = arrayArg(args, 'prompts', 'invalid_arguments');
    if (prompts.length === 0 || prompts.length > 4) fail('invalid_arguments', 'prompts: 1 to 4 items');
    thread.prompts = prompts.map((p, i) => {
      const prompt = p as { title?: unknown; message?: unknown };
      if (
        typeof prompt.title !== 'string' ||
        typeof prompt.message !== 'string' ||
        !prompt.title ||
        !prompt.message
      )
        fail('invalid_arguments', `prompts[${i}] needs a title and a message`);
      return { title: prompt.title, message: prompt.message };
    });
    const title = optional(args, 'title');
    if (title !== undefined) thread.title = title;
    viewsOf(slack).suggest({
      channel: slack.channelId(required(args, 'channel_id')),
      threadTs: optional(args, 'thread_ts') ?? '',
      ...(title === undefined ? {} : { title }),
      prompts: thread.prompts,
    });
    return {};
  },

  'assistant.threads.setTitle': (slack, args) => {
    const thread = assistantThread(slack, args);
    thread.title = required(args, 'title');
    return {};
  },
};

function streams(slack: FakeSlack): Map<string, FakeStream> {
  const map = streamsOf(slack);
  return map;
}

function openStream(slack: FakeSlack, args: SlackArgs): { stream: FakeStream; message: StoredSlackMessage } {
  const channel = slack.channelId(required(args, 'channel'));
  const ts = required(args, 'ts');
  const message = slack.find(channel, ts);
  const stream = streams(slack).get(`${channel}:${ts}`);
  if (stream?.state !== 'in_progress') fail('message_not_in_streaming_state', `${channel} ${ts}`);
  return { stream, message };
}

function assistantThread(slack: FakeSlack, args: SlackArgs, threadRequired = true): FakeAssistantThread {
  const channel = slack.channelId(required(args, 'channel_id'));
  if (!channel.startsWith('D'))
    fail('invalid_arguments', 'channel_id must be an assistant thread (a DM with the app)');
  const threadTs = threadRequired ? required(args, 'thread_ts') : (optional(args, 'thread_ts') ?? '');
  if (threadTs !== '') slack.find(channel, threadTs);
  const map = threadsOf(slack);
  const key = `${channel}:${threadTs}`;
  const thread = map.get(key) ?? { channel, threadTs, status: '', loadingMessages: [], statuses: [] };
  map.set(key, thread);
  return thread;
}

/** The call's chunks (with `markdown_text` as a first chunk), checked; one is required. */
function chunksOf(args: SlackArgs): Record<string, unknown>[] {
  const chunks: unknown[] = args.chunks === undefined ? [] : arrayArg(args, 'chunks', 'invalid_chunks');
  const markdown = optional(args, 'markdown_text');
  if (markdown !== undefined) chunks.unshift({ type: 'markdown_text', text: markdown });
  if (chunks.length === 0) fail('invalid_arguments', 'markdown_text or chunks is required');
  return chunks.map((chunk, i) => checkChunk(chunk, `chunks[${i}]`));
}

function checkChunk(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('invalid_chunks', `${at}: must be an object`);
  const chunk = value as Record<string, unknown>;
  switch (chunk.type) {
    case 'markdown_text':
      if (typeof chunk.text !== 'string' || chunk.text === '') fail('invalid_chunks', `${at}.text: required`);
      if (chunk.text.length > MARKDOWN_TEXT_LIMIT)
        fail('msg_too_long', `${at}.text: more than ${MARKDOWN_TEXT_LIMIT} characters`);
      return chunk;
    case 'plan_update':
      if (typeof chunk.title !== 'string' || chunk.title === '')
        fail('invalid_chunks', `${at}.title: required`);
      return chunk;
    case 'task_update':
      wrap(() => checkTaskCard(chunk, at, 'id'));
      for (const field of ['details', 'output'])
        if (chunk[field] !== undefined && typeof chunk[field] !== 'string')
          fail('invalid_chunks', `${at}.${field}: must be a string`);
      return chunk;
    case 'blocks':
      if (!Array.isArray(chunk.blocks)) fail('invalid_chunks', `${at}.blocks: must be an array`);
      wrap(() => checkBlocks(chunk.blocks as unknown[], `${at}.blocks`));
      return chunk;
    default:
      return fail('invalid_chunks', `${at}.type: unknown chunk type ${JSON.stringify(chunk.type)}`);
  }
}

function apply(stream: FakeStream, method: string, chunks: Record<string, unknown>[]): void {
  stream.calls.push({ method, chunks });
  for (const chunk of chunks) {
    if (chunk.type === 'markdown_text') {
      const last = stream.segments.at(-1);
      if (last?.kind === 'markdown') last.text += String(chunk.text);
      else stream.segments.push({ kind: 'markdown', text: String(chunk.text) });
    } else if (chunk.type === 'blocks') {
      stream.segments.push({ kind: 'blocks', blocks: chunk.blocks as unknown[] });
    } else if (chunk.type === 'plan_update') {
      stream.planTitle = String(chunk.title);
      placeTasks(stream);
    } else if (chunk.type === 'task_update') {
      const task: FakeStreamTask = {
        id: String(chunk.id),
        title: String(chunk.title),
        status: String(chunk.status),
        ...(typeof chunk.output === 'string' ? { output: chunk.output } : {}),
        ...(typeof chunk.details === 'string' ? { details: chunk.details } : {}),
      };
      const index = stream.tasks.findIndex((t) => t.id === task.id);
      if (index < 0) stream.tasks.push(task);
      else stream.tasks[index] = task;
      placeTasks(stream);
    }
  }
}

function placeTasks(stream: FakeStream): void {
  if (!stream.segments.some((s) => s.kind === 'tasks')) stream.segments.push({ kind: 'tasks' });
}

function show(message: StoredSlackMessage, stream: FakeStream): void {
  message.text = textOf(stream);
  message.blocks = render(stream);
}

function textOf(stream: FakeStream): string {
  return stream.segments.flatMap((s) => (s.kind === 'markdown' ? [s.text] : [])).join('\n');
}

function render(stream: FakeStream): unknown[] {
  return stream.segments.flatMap((segment): unknown[] => {
    if (segment.kind === 'markdown') return [{ type: 'markdown', text: segment.text }];
    if (segment.kind === 'blocks') return segment.blocks;
    const cards = stream.tasks.map((task) => ({
      type: 'task_card',
      task_id: task.id,
      title: task.title,
      status: task.status,
      ...(task.output === undefined ? {} : { output: richText(task.output) }),
      ...(task.details === undefined ? {} : { details: richText(task.details) }),
    }));
    return stream.mode === 'plan' || stream.planTitle !== undefined
      ? [{ type: 'plan', title: stream.planTitle ?? 'Plan', tasks: cards }]
      : cards;
  });
}

function richText(text: string) {
  return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] };
}

function arrayArg(args: SlackArgs, name: string, error: string): unknown[] {
  let value = args[name];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      fail(error, `${name} is not valid JSON`);
    }
  }
  if (!Array.isArray(value)) fail(error, `${name} must be an array`);
  return [...value];
}

function required(args: SlackArgs, name: string): string {
  const value = optional(args, name);
  if (value === undefined || value === '') fail('invalid_arguments', `missing required field: ${name}`);
  return value;
}

function optional(args: SlackArgs, name: string): string | undefined {
  const value = args[name];
  return value === undefined || value === null ? undefined : String(value);
}

/** Block problems inside a chunk are the chunk's. */
function wrap(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof SlackApiError) fail('invalid_chunks', error.message);
    throw error;
  }
}

function fail(code: string, detail: string): never {
  throw new SlackApiError(code, detail);
}
