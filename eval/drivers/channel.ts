import { DynamoDailySpend } from '../../lambdas/adapters/dynamo-daily-spend.ts';
import { utcDay } from '../../lambdas/agents/pricing.ts';
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

const CHANNEL = 'C_TEAM';

export const channelConfig = () => ({ channels: { team: CHANNEL } });

/**
 * What the case's channel answers cost: a case's messages may make more than one channel
 * conversation (each with its own ledger), and every model call is added to the platform's
 * spend counter of the day, which in a case's own sandbox counts nothing else.
 */
async function spendMeter(session: Session): Promise<() => Promise<number>> {
  const spend = new DynamoDailySpend({
    client: session.sandbox.dynamodb,
    tableName: session.sandbox.tableName,
  });
  const firstDay = utcDay(new Date());
  const before = await spend.spentOn(firstDay);
  return async () => {
    const lastDay = utcDay(new Date());
    const first = (await spend.spentOn(firstDay)) - before;
    return lastDay === firstDay ? first : first + (await spend.spentOn(lastDay));
  };
}

export async function runChannelCase(session: Session, c: ChannelCase, deadline: number): Promise<DriverRun> {
  const spent = await spendMeter(session);
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
    costMicroUsd: await spent(),
    gradingMs: Date.now() - graded,
  };
}
