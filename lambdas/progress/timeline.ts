/**
 * A turn's timeline: its tasks (one per tool call) and, for a workflow with stages, its plan.
 * Pure: it knows Slack's chunk and block shapes as plain data, not the SDK. The same state
 * renders as stream chunks (`task_update`, `plan_update`) or, where no stream is used, as the
 * blocks of one message updated in place.
 */

export const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TimelineTask {
  id: string;
  title: string;
  status: TaskStatus;
  /** One line on how it ended. */
  output?: string;
}

/** A workflow's plan: its stages (or hypotheses) and where the conversation stands in it. */
export interface TimelinePlan {
  title: string;
  steps: TimelineTask[];
}

/** The Stop button's action id; its value is the conversation id. */
const STOP_ACTION_ID = 'stop_turn';

/** Tasks kept in the stored record and shown in a message (Slack's lines are not unlimited). */
export const MAX_KEPT_TASKS = 100;
/** Tasks listed in a message updated in place; earlier ones are counted. */
export const MAX_LISTED_TASKS = 25;
/** Slack's limit on a section's text. */
const SECTION_TEXT_LIMIT = 3_000;

export type ProgressChunk =
  | { type: 'markdown_text'; text: string }
  | { type: 'plan_update'; title: string }
  | { type: 'task_update'; id: string; title: string; status: TaskStatus; output?: string }
  | { type: 'blocks'; blocks: Record<string, unknown>[] };

/** The Stop button, as a Block Kit actions block. */
export function stopBlock(conversationId: string): Record<string, unknown> {
  return {
    type: 'actions',
    block_id: 'turn_controls',
    elements: [
      {
        type: 'button',
        action_id: STOP_ACTION_ID,
        text: { type: 'plain_text', text: 'Stop', emoji: true },
        value: conversationId,
        style: 'danger',
        accessibility_label: 'Stop what the agent is doing now',
      },
    ],
  };
}

export function taskChunk(task: TimelineTask): ProgressChunk {
  return {
    type: 'task_update',
    id: task.id,
    title: task.title,
    status: task.status,
    ...(task.output === undefined ? {} : { output: task.output }),
  };
}

/**
 * Merges chunks waiting for the next call: a task's later update replaces its earlier one
 * (in the earlier one's place), so a coalesced call carries each task once, as it is now.
 */
export function mergeChunks(pending: readonly ProgressChunk[]): ProgressChunk[] {
  const merged: ProgressChunk[] = [];
  const at = new Map<string, number>();
  for (const chunk of pending) {
    if (chunk.type !== 'task_update') {
      if (chunk.type === 'plan_update') {
        const earlier = merged.findIndex((c) => c.type === 'plan_update');
        if (earlier >= 0) {
          merged[earlier] = chunk;
          continue;
        }
      }
      merged.push(chunk);
      continue;
    }
    const index = at.get(chunk.id);
    if (index === undefined) {
      at.set(chunk.id, merged.length);
      merged.push(chunk);
    } else merged[index] = chunk;
  }
  return merged;
}

/** Adds or replaces a task, keeping the newest `MAX_KEPT_TASKS`. */
export function upsertTask(tasks: readonly TimelineTask[], task: TimelineTask): TimelineTask[] {
  const index = tasks.findIndex((t) => t.id === task.id);
  const next = index < 0 ? [...tasks, task] : tasks.map((t, i) => (i === index ? task : t));
  return next.slice(-MAX_KEPT_TASKS);
}

export const STATUS_EMOJI: Record<TaskStatus, string> = {
  pending: ':white_circle:',
  in_progress: ':hourglass_flowing_sand:',
  complete: ':white_check_mark:',
  error: ':x:',
};

/**
 * The timeline as one message's blocks (where no stream is used): a heading, the plan's steps,
 * the latest tasks with their outcome, and the Stop button while the turn runs.
 */
export function timelineBlocks(view: {
  heading: string;
  tasks: readonly TimelineTask[];
  plan?: TimelinePlan | undefined;
  conversationId: string;
  running: boolean;
  footer?: string | undefined;
}): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [section(view.heading)];
  if (view.plan) {
    const steps = view.plan.steps.map((s) => `${STATUS_EMOJI[s.status]} ${escapeText(s.title)}`);
    blocks.push(section([`*${escapeText(view.plan.title)}*`, ...steps].join('\n')));
  }
  if (view.tasks.length > 0) {
    const shown = view.tasks.slice(-MAX_LISTED_TASKS);
    const earlier = view.tasks.length - shown.length;
    const lines = shown.map(
      (t) =>
        `${STATUS_EMOJI[t.status]} ${escapeText(t.title)}${t.output ? ` — ${escapeText(t.output)}` : ''}`,
    );
    if (earlier > 0) lines.unshift(`_${earlier} earlier step${earlier === 1 ? '' : 's'}_`);
    blocks.push(section(lines.join('\n')));
  }
  if (view.footer)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: withMentions(escapeText(view.footer)) }],
    });
  if (view.running) blocks.push(stopBlock(view.conversationId));
  return blocks;
}

/**
 * A closed stream's message as it showed the timeline (its heading, the tasks as task cards or
 * the plan, the closing line), without the Stop button it streamed.
 */
export function closedStreamBlocks(view: {
  heading: string;
  tasks: readonly TimelineTask[];
  plan?: TimelinePlan | undefined;
  closing: string;
}): Record<string, unknown>[] {
  const card = (task: TimelineTask) => ({
    type: 'task_card',
    task_id: task.id,
    title: task.title,
    status: task.status,
    ...(task.output === undefined
      ? {}
      : {
          output: {
            type: 'rich_text',
            elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: task.output }] }],
          },
        }),
  });
  const tasks = view.tasks.slice(-MAX_LISTED_TASKS).map(card);
  const body = view.plan
    ? [{ type: 'plan', title: view.plan.title, tasks: [...view.plan.steps.map(card), ...tasks] }]
    : tasks;
  return [{ type: 'markdown', text: view.heading }, ...body, { type: 'markdown', text: view.closing }];
}

/** The fallback text of the message (notifications, screen readers). */
export function timelineText(heading: string, tasks: readonly TimelineTask[]): string {
  const last = tasks.at(-1);
  return last ? `${heading} ${last.title}` : heading;
}

function section(text: string): Record<string, unknown> {
  const cut = text.length <= SECTION_TEXT_LIMIT ? text : `${text.slice(0, SECTION_TEXT_LIMIT - 1)}…`;
  return { type: 'section', text: { type: 'mrkdwn', text: cut } };
}

/**
 * The closing line's mention of a person (`closed by <@U123>`, built by code) as Slack's
 * mention again once the line is escaped, so it shows the person's name.
 */
export function withMentions(escaped: string): string {
  return escaped.replace(/&lt;@([UW][A-Z0-9_]+)&gt;/g, '<@$1>');
}

/** Slack's three control characters in text from tools and models. */
export function escapeText(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
