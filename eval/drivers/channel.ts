import type { ChannelCase } from '../cases/channel.ts';
import { gradeChannelCase } from '../graders/channel.ts';
import type { Session } from '../session.ts';
import { type Check, verdictOf } from '../types.ts';
import type { DriverRun } from './driver.ts';

/**
 * A channel situation: each message posted in turn into a channel no workflow owns; after each,
 * the sandbox is let run until its queues are empty, and a bot message that appeared since is
 * that message's answer.
 */

const CHANNEL = 'C_EVAL';

export const channelConfig = () => ({ channels: { eval: CHANNEL } });

export async function runChannelCase(session: Session, c: ChannelCase, deadline: number): Promise<DriverRun> {
  const started = Date.now();
  let firstAnswerMs: number | undefined;
  const replies: (string | undefined)[] = [];
  const settle = async () => {
    await session.sandbox.idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await session.sandbox.idle();
  };
  for (const step of c.steps) {
    if (Date.now() > deadline) break;
    const before = (await session.messages(CHANNEL)).filter((m) => m.bot).length;
    await session.post(CHANNEL, step.user, step.text);
    await settle();
    const bots = (await session.messages(CHANNEL)).filter((m) => m.bot);
    const reply =
      bots.length > before
        ? bots
            .slice(before)
            .map((m) => m.text)
            .join('\n')
        : undefined;
    if (reply !== undefined && firstAnswerMs === undefined) firstAnswerMs = Date.now() - started;
    replies.push(reply);
  }
  const endMs = Date.now() - started;
  const graded = Date.now();
  const checks: Check[] = await gradeChannelCase(c, replies, session.judge);
  return {
    verdict: verdictOf(checks),
    ...(firstAnswerMs !== undefined ? { firstAnswerMs } : {}),
    endMs,
    conversationIds: [],
    gradingMs: Date.now() - graded,
  };
}
