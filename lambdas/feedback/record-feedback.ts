import type {
  FeedbackPress,
  FeedbackReason,
  FeedbackReasonRequest,
  SurfaceOutcome,
} from '../kernel/inbox-surface.ts';
import { FEEDBACK_METRIC, type FeedbackRecord } from './model.ts';
import type { FeedbackDeps } from './ports.ts';
import { addReasonButton, decodeTarget, type FeedbackTarget, reasonModal } from './reason-form.ts';

/**
 * A press of an answer's feedback buttons. Anyone who can see the answer may give feedback
 * on it (Slack sends presses only from people who can see the message): the press is stored
 * as that person's feedback on that answer, replacing their earlier one, and acknowledged to
 * them alone. A thumbs down opens the optional reason form. A press on a message no
 * conversation owns, or naming a conversation of another channel, stores nothing and says so.
 */
export async function recordFeedbackPress(press: FeedbackPress, deps: FeedbackDeps): Promise<SurfaceOutcome> {
  const threadTs = press.threadTs ?? press.messageTs;
  const base = { type: 'surface', surface: press.surface } as const;
  // How the acknowledgement names the answer: a kind no deployed workflow declares is not one.
  const label = deps.answerKinds[press.answerKind];
  if (label === undefined) {
    deps.log('feedback on an answer kind no deployed workflow declares: not stored', {
      answerKind: press.answerKind,
    });
    return { ...base, outcome: 'ignored', detail: `answer kind ${press.answerKind} is not declared` };
  }
  const conversation = await deps.conversations.find({
    channel: press.channel,
    threadTs,
    messageTs: press.messageTs,
    ...(press.conversationId === undefined ? {} : { conversationId: press.conversationId }),
  });
  if (conversation === undefined) {
    deps.log('feedback on an answer no conversation owns: not stored', {
      channel: press.channel,
      messageTs: press.messageTs,
      named: press.conversationId,
    });
    await deps.slack.ephemeral({
      channel: press.channel,
      user: press.user,
      threadTs,
      text: 'Your feedback could not be recorded: this message belongs to no conversation the agents keep.',
    });
    return { ...base, outcome: 'ignored', detail: 'no conversation owns the message' };
  }
  const record: FeedbackRecord = {
    conversationId: conversation.conversationId,
    workflow: conversation.workflow,
    answerKind: press.answerKind,
    channel: press.channel,
    messageTs: press.messageTs,
    ...(press.threadTs === undefined ? {} : { threadTs: press.threadTs }),
    answerText: press.answerText,
    request: conversation.request,
    vote: press.vote,
    by: press.user,
    at: deps.clock.now().toISOString(),
    pressTs: press.ts,
  };
  const written = await deps.store.put(record);
  const outcome = { ...base, conversationId: conversation.conversationId };
  if (written === 'stale') {
    // A redelivery of a press older than the one stored: the later press stands.
    return { ...outcome, outcome: 'stale', detail: 'an older press than the one stored' };
  }
  deps.count(press.vote === 'up' ? FEEDBACK_METRIC.up : FEEDBACK_METRIC.down);
  if (written === 'replaced') deps.count(FEEDBACK_METRIC.replaced);
  const target: FeedbackTarget = {
    conversationId: conversation.conversationId,
    channel: press.channel,
    messageTs: press.messageTs,
  };
  if (press.vote === 'up') {
    await deps.slack.ephemeral({
      channel: press.channel,
      user: press.user,
      threadTs,
      text: `:+1: Thanks: your thumbs up on ${label} is recorded.`,
    });
    return { ...outcome, outcome: written, detail: 'up' };
  }
  const opened =
    press.triggerId === undefined
      ? 'expired'
      : await deps.slack.openView(press.triggerId, reasonModal(target, label));
  const text =
    opened === 'opened'
      ? `:-1: Thanks: your thumbs down on ${label} is recorded. Say what was wrong in the form, or with the button below later.`
      : `:-1: Thanks: your thumbs down on ${label} is recorded. Press *Add a reason* to say what was wrong (optional).`;
  await deps.slack.ephemeral({
    channel: press.channel,
    user: press.user,
    threadTs,
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, addReasonButton(target)],
  });
  return { ...outcome, outcome: written, detail: `down; reason form ${opened}` };
}

/** "Add a reason" pressed: opens the reason form again with this press's trigger id. */
export async function openReasonForm(
  request: FeedbackReasonRequest,
  deps: FeedbackDeps,
): Promise<SurfaceOutcome> {
  const base = { type: 'surface', surface: request.surface } as const;
  const target = decodeTarget(request.target);
  if (target === undefined) {
    deps.log('refused an "Add a reason" press whose value is not a feedback target', { user: request.user });
    return { ...base, outcome: 'refused', detail: 'value is not a feedback target' };
  }
  const opened = await deps.slack.openView(request.triggerId, reasonModal(target, 'this answer'));
  return { ...base, outcome: opened, conversationId: target.conversationId };
}

/** The reason form submitted: the reason is kept with the presser's thumbs down. */
export async function recordFeedbackReason(
  submitted: FeedbackReason,
  deps: FeedbackDeps,
): Promise<SurfaceOutcome> {
  const base = { type: 'surface', surface: submitted.surface } as const;
  const target = decodeTarget(submitted.target);
  if (target === undefined) {
    deps.log('refused a reason form whose private_metadata is not a feedback target', {
      user: submitted.user,
    });
    return { ...base, outcome: 'refused', detail: 'private_metadata is not a feedback target' };
  }
  if (submitted.reason === '') return { ...base, outcome: 'empty', conversationId: target.conversationId };
  const written = await deps.store.setReason(target, submitted.user, submitted.reason);
  if (written === 'not_found') {
    // Their vote is an up now, or was never theirs: the reason has nothing to go with.
    await deps.slack.ephemeral({
      channel: target.channel,
      user: submitted.user,
      text: 'Your reason was not kept: there is no thumbs down of yours on that answer any more.',
    });
    return { ...base, outcome: 'not_found', conversationId: target.conversationId };
  }
  deps.count(FEEDBACK_METRIC.reasons);
  return { ...base, outcome: 'stored', conversationId: target.conversationId };
}
