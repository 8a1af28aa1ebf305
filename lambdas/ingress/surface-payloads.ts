import * as z from 'zod';
import {
  FEEDBACK_REASON_ACTION_ID,
  FEEDBACK_REASON_CALLBACK_ID,
  readReason,
} from '../feedback/reason-form.ts';
import { parseHomeApprovalBlockId } from '../home/approval-block-id.ts';
import { MAX_ANSWER_TEXT_CHARS } from '../kernel/inbox-surface.ts';
import { FEEDBACK_ACTION_ID, FeedbackVote, parseFeedbackBlockId } from '../slack/templates/feedback.ts';

/**
 * Slack's app-surface payloads the ingress reads beside messages and buttons: the feedback
 * buttons (`feedback_buttons` in a `context_actions` block), the reason form's submission
 * (`view_submission`), `app_home_opened`, the assistant thread's events, and approval buttons
 * pressed in the App Home. Each becomes one inbox record, or a refusal with its reason.
 */

const Id = z.string().min(1);

/** A candidate inbox record (checked against the inbox schema by the caller), or why not. */
export type SurfaceParse =
  | { type: 'record'; record: Record<string, unknown> }
  | { type: 'ignore'; detail: string }
  | { type: 'invalid'; reason: string };

interface Received {
  receivedAt: string;
  teamId: string | undefined;
}

const AppHomeOpened = z.looseObject({
  type: z.literal('app_home_opened'),
  user: Id,
  tab: z.string().optional(),
  event_ts: Id,
});

const AssistantThreadEvent = z.looseObject({
  type: z.enum(['assistant_thread_started', 'assistant_thread_context_changed']),
  assistant_thread: z.looseObject({ user_id: Id, channel_id: Id, thread_ts: Id }),
  event_ts: Id,
});

/** The Events API events of the app's surfaces; undefined for any other event type. */
export function parseSurfaceEvent(
  event: { type: string } & Record<string, unknown>,
  eventId: string,
  received: Received,
): SurfaceParse | undefined {
  switch (event.type) {
    case 'app_home_opened': {
      const opened = AppHomeOpened.safeParse(event);
      if (!opened.success) return { type: 'invalid', reason: `app_home_opened: ${issues(opened.error)}` };
      // The Messages tab is the DM with the bot: nothing to publish for it.
      if (opened.data.tab !== undefined && opened.data.tab !== 'home')
        return { type: 'ignore', detail: `app_home_opened on the ${opened.data.tab} tab` };
      return record({
        surface: 'home_opened',
        eventId,
        user: opened.data.user,
        ts: opened.data.event_ts,
        ...common(received),
      });
    }
    case 'assistant_thread_started':
    case 'assistant_thread_context_changed': {
      const thread = AssistantThreadEvent.safeParse(event);
      if (!thread.success) return { type: 'invalid', reason: `${event.type}: ${issues(thread.error)}` };
      // The channel a person is looking at beside the thread: the suggested prompts do not
      // depend on it, so a change of it needs nothing from us.
      if (thread.data.type === 'assistant_thread_context_changed')
        return {
          type: 'ignore',
          detail: 'assistant_thread_context_changed: the prompts do not depend on it',
        };
      const { assistant_thread: t } = thread.data;
      return record({
        surface: 'assistant_thread_started',
        eventId,
        user: t.user_id,
        channel: t.channel_id,
        threadTs: t.thread_ts,
        ts: thread.data.event_ts,
        ...common(received),
      });
    }
    default:
      return undefined;
  }
}

/** What a `block_actions` payload carries that the surfaces read (a loose view of it). */
export interface SurfaceAction {
  triggerId: string | undefined;
  user: string;
  teamId: string | undefined;
  container: {
    type: string;
    channel_id?: string | undefined;
    message_ts?: string | undefined;
    thread_ts?: string | undefined;
  };
  channel: string | undefined;
  messageTs: string | undefined;
  threadTs: string | undefined;
  messageText: string | undefined;
  action: { action_id: string; action_ts: string; block_id?: string | undefined; value?: string | undefined };
  receivedAt: string;
}

/**
 * A press the surfaces take: the feedback buttons, "Add a reason", or an approval button in
 * the App Home (turned back into a press on the approval's message). Undefined for any other.
 */
export function parseSurfaceAction(press: SurfaceAction): SurfaceParse | undefined {
  const { action } = press;
  if (action.action_id === FEEDBACK_ACTION_ID) return feedbackPress(press);
  if (action.action_id === FEEDBACK_REASON_ACTION_ID) {
    if (press.triggerId === undefined || press.channel === undefined || action.value === undefined)
      return { type: 'invalid', reason: 'feedback reason request: no trigger_id, channel or value' };
    return record({
      surface: 'feedback_reason_request',
      eventId: press.triggerId,
      user: press.user,
      channel: press.channel,
      target: action.value,
      triggerId: press.triggerId,
      ts: action.action_ts,
      receivedAt: press.receivedAt,
      ...(press.teamId === undefined ? {} : { teamId: press.teamId }),
    });
  }
  if (press.container.type === 'view') {
    const place = parseHomeApprovalBlockId(action.block_id);
    if (place === undefined) return undefined;
    return {
      type: 'record',
      record: {
        kind: 'action',
        eventId: press.triggerId ?? `${place.channel}:${place.messageTs}:${action.action_ts}`,
        ...(press.teamId === undefined ? {} : { teamId: press.teamId }),
        channel: place.channel,
        user: press.user,
        receivedAt: press.receivedAt,
        actionId: action.action_id,
        ...(action.value === undefined ? {} : { value: action.value }),
        messageTs: place.messageTs,
        ...(place.threadTs === undefined ? {} : { threadTs: place.threadTs }),
        ts: action.action_ts,
        fromHome: true,
      },
    };
  }
  return undefined;
}

function feedbackPress(press: SurfaceAction): SurfaceParse {
  const { action } = press;
  const block = parseFeedbackBlockId(action.block_id);
  if (block === undefined)
    return {
      type: 'invalid',
      reason: `feedback press: block_id ${JSON.stringify(action.block_id ?? null)} is not a feedback block`,
    };
  const vote = FeedbackVote.safeParse(action.value);
  if (!vote.success)
    return {
      type: 'invalid',
      reason: `feedback press: value ${JSON.stringify(action.value ?? null)} is neither up nor down`,
    };
  if (press.channel === undefined || press.messageTs === undefined)
    return { type: 'invalid', reason: 'feedback press: not on a message (no channel or message_ts)' };
  return record({
    surface: 'feedback_press',
    eventId: press.triggerId ?? `${press.channel}:${press.messageTs}:${action.action_ts}`,
    user: press.user,
    channel: press.channel,
    messageTs: press.messageTs,
    ...(press.threadTs === undefined ? {} : { threadTs: press.threadTs }),
    vote: vote.data,
    answerKind: block.kind,
    ...(block.conversationId === undefined ? {} : { conversationId: block.conversationId }),
    answerText: (press.messageText ?? '').slice(0, MAX_ANSWER_TEXT_CHARS),
    ...(press.triggerId === undefined ? {} : { triggerId: press.triggerId }),
    ts: action.action_ts,
    receivedAt: press.receivedAt,
    ...(press.teamId === undefined ? {} : { teamId: press.teamId }),
  });
}

const ViewSubmission = z.looseObject({
  type: z.literal('view_submission'),
  trigger_id: Id.optional(),
  user: z.looseObject({ id: Id }),
  team: z.looseObject({ id: Id }).nullish(),
  view: z.looseObject({
    id: Id,
    callback_id: z.string().optional(),
    private_metadata: z.string().optional(),
    hash: z.string().optional(),
    state: z
      .looseObject({ values: z.record(z.string(), z.record(z.string(), z.looseObject({}))) })
      .optional(),
  }),
});

/** A modal submitted: the feedback reason form's, or a logged ignore for any other. */
export function parseViewSubmission(
  json: unknown,
  received: { receivedAt: string; syntheticTs: (id: string) => string },
): SurfaceParse {
  const submission = ViewSubmission.safeParse(json);
  if (!submission.success) return { type: 'invalid', reason: `view_submission: ${issues(submission.error)}` };
  const { view, user, team, trigger_id: triggerId } = submission.data;
  if (view.callback_id !== FEEDBACK_REASON_CALLBACK_ID)
    return {
      type: 'ignore',
      detail: `view_submission of ${view.callback_id ?? 'a view without callback_id'}`,
    };
  if (!view.private_metadata)
    return { type: 'invalid', reason: 'feedback reason: the view has no private_metadata' };
  const reason = readReason(view.state?.values ?? {});
  if (reason === undefined)
    return { type: 'invalid', reason: 'feedback reason: the form has no reason field' };
  const eventId = `${view.id}:${view.hash ?? triggerId ?? ''}`;
  return record({
    surface: 'feedback_reason',
    eventId,
    user: user.id,
    target: view.private_metadata,
    reason,
    ts: received.syntheticTs(eventId),
    receivedAt: received.receivedAt,
    ...(team?.id === undefined ? {} : { teamId: team.id }),
  });
}

function common(received: Received) {
  return {
    receivedAt: received.receivedAt,
    ...(received.teamId === undefined ? {} : { teamId: received.teamId }),
  };
}

function record(fields: Record<string, unknown>): SurfaceParse {
  return { type: 'record', record: { kind: 'surface', ...fields } };
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * What an answer says, from the message a press came with: the text of its header and
 * section blocks (what people read), or its top-level text when it has none.
 */
export function answerText(
  blocks: readonly unknown[] | undefined,
  text: string | undefined,
): string | undefined {
  const parts: string[] = [];
  for (const block of blocks ?? []) {
    if (typeof block !== 'object' || block === null) continue;
    const b = block as { type?: unknown; text?: { text?: unknown }; fields?: unknown };
    if ((b.type === 'header' || b.type === 'section') && typeof b.text?.text === 'string')
      parts.push(b.text.text);
    if (b.type === 'section' && Array.isArray(b.fields)) {
      for (const field of b.fields as { text?: unknown }[])
        if (typeof field.text === 'string') parts.push(field.text);
    }
  }
  return parts.length > 0 ? parts.join('\n') : text;
}
