import type { ChannelCase } from '../cases/channel.ts';
import { gradeChannel } from '../graders/channel.ts';
import { judge, judgeAvailable } from '../graders/judge.ts';
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
  const checks: Check[] = gradeChannel(c.steps, replies);
  if (judgeAvailable()) {
    for (const [i, step] of c.steps.entries()) {
      const reply = replies[i];
      if (!step.rubric || reply === undefined) continue;
      const context = c.steps
        .slice(0, i + 1)
        .map((s) => `${s.user}: ${s.text}`)
        .join('\n');
      const verdict = await judge({
        task: 'Answer a question in a Slack channel',
        context,
        answer: reply,
        rubric: [step.rubric],
      });
      checks.push({ name: `message ${i + 1}: judge`, pass: verdict.pass, detail: verdict.reason });
    }
  }
  return {
    verdict: verdictOf(checks),
    ...(firstAnswerMs !== undefined ? { firstAnswerMs } : {}),
    endMs,
    conversationIds: [],
    gradingMs: Date.now() - graded,
  };
}
