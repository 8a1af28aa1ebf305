import type { SlackPostOutput } from '../../kernel/slack-post-output.ts';
import { withFeedback } from '../../slack/templates/feedback.ts';
import type { MessageUpdater } from './adapters/slack-progress.ts';
import { IncidentNotFoundError } from './errors.ts';
import { renderPhase } from './progress.ts';
import type { IncidentStore, Phase } from './record.ts';

/**
 * Shows a phase in the incident's thread: the first time, a post (exactly once, through the
 * kernel's SlackPost logic and its idempotency key); afterwards `chat.update` of that message
 * with the phase rendered from what is stored now.
 */
export async function showPhase(
  input: { conversationId: string; phase: Phase },
  deps: {
    incidents: IncidentStore;
    post: (args: {
      conversationId: string;
      channel: string;
      threadTs: string;
      text: string;
      blocks?: Record<string, unknown>[];
      idempotencyKey: string;
    }) => Promise<SlackPostOutput>;
    updater: MessageUpdater;
  },
): Promise<{ phase: Phase; ts: string; updated: boolean }> {
  const record = await deps.incidents.getRecord(input.conversationId);
  if (record === undefined) throw new IncidentNotFoundError(input.conversationId);
  const nodes = await deps.incidents.listNodes(input.conversationId);
  const text = renderPhase(input.phase, record, nodes);
  // The conclusion, once reached, is an answer people rate: it carries the feedback buttons.
  const blocks =
    input.phase === 'conclusion' && record.conclusion !== undefined
      ? { blocks: withFeedback({ text }, 'conclusion') }
      : {};
  const posted = record.progress[input.phase];
  if (posted !== undefined) {
    await deps.updater.update({ channel: posted.channel, ts: posted.ts, text, ...blocks });
    return { phase: input.phase, ts: posted.ts, updated: true };
  }
  const out = await deps.post({
    conversationId: input.conversationId,
    channel: record.channel,
    threadTs: record.threadTs,
    text,
    ...blocks,
    idempotencyKey: `${input.conversationId}:progress:${input.phase}`,
  });
  await deps.incidents.updateRecord(input.conversationId, {
    progress: { ...record.progress, [input.phase]: { channel: out.channel, ts: out.ts } },
  });
  return { phase: input.phase, ts: out.ts, updated: false };
}
