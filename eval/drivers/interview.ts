import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import type { InterviewCase } from '../cases/interview.ts';
import { gradeInterview } from '../graders/interview.ts';
import type { Session } from '../session.ts';
import { type Check, verdictOf } from '../types.ts';
import type { DriverRun } from './driver.ts';
import { withFault } from './faults.ts';
import { slackTriggerId } from './ids.ts';

/**
 * A requirements interview: `/prd <idea>` as the requester, who answers each time the interview
 * waits for them (persona.answers, then persona.fallback), until it ends. By code: it ended with
 * a PRD and an analysis posted. By the judge: the PRD covers the rubric's must-haves and the
 * analysis names the risks.
 */

const PRODUCT = 'C_PRODUCT';
const REQUESTER = 'U_REQ';
const MAX_ANSWERS = 8;

export const interviewConfig = () => ({ channels: { product: PRODUCT } });

/** The requester's answer to the agent's latest post: the first unused matching answer, else the next fallback. */
export function personaAnswer(
  c: InterviewCase,
  question: string,
  used: Set<number>,
  fallbacks: { next: number },
): string {
  const index = c.persona.answers.findIndex((a, i) => !used.has(i) && new RegExp(a.when, 'i').test(question));
  if (index >= 0) {
    used.add(index);
    return c.persona.answers[index]?.say ?? '';
  }
  const fallback =
    c.persona.fallback[fallbacks.next % Math.max(1, c.persona.fallback.length)] ?? 'No further details.';
  fallbacks.next++;
  return fallback;
}

export async function runInterviewCase(
  session: Session,
  c: InterviewCase,
  deadline: number,
): Promise<DriverRun> {
  const triggerId = slackTriggerId(c.id);
  const id = conversationIdFor('requirements_interview', PRODUCT, triggerId);
  const started = Date.now();
  await session.slash('/prd', c.idea, PRODUCT, REQUESTER, triggerId);
  const used = new Set<number>();
  const fallbacks = { next: 0 };
  let answers = 0;
  let answeredWait: string | undefined;
  let prdAt: number | undefined;
  let thread: string | undefined;
  let ended = false;
  while (Date.now() < deadline && !ended) {
    const conversation = await session.store.getConversation(id, { consistent: true }).catch(() => undefined);
    thread ??= Object.values(conversation?.anchors ?? {}).find((a) => a.name === 'interview')?.threadTs;
    const posts = thread ? (await session.messages(PRODUCT, thread)).filter((m) => m.bot) : [];
    if (prdAt === undefined && posts.some((p) => p.text.startsWith('PRD:'))) prdAt = Date.now();
    const waitKey = conversation?.wait ? JSON.stringify(conversation.wait) : undefined;
    if (
      thread &&
      conversation?.phase === 'awaiting_answer' &&
      waitKey &&
      waitKey !== answeredWait &&
      answers < MAX_ANSWERS
    ) {
      answeredWait = waitKey;
      answers++;
      await session.post(
        PRODUCT,
        REQUESTER,
        personaAnswer(c, posts.at(-1)?.text ?? '', used, fallbacks),
        thread,
      );
    }
    const status = session.executionStatus(id);
    ended = status !== undefined && status !== 'RUNNING';
    if (!ended) await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const endMs = Date.now() - started;
  const graded = Date.now();
  const posts = thread ? (await session.messages(PRODUCT, thread)).filter((m) => m.bot) : [];
  const full = (ts: string) => {
    const message = session.sandbox.slack.workspace.find(PRODUCT, ts);
    return `${message.text ?? ''}\n${JSON.stringify(message.blocks ?? [])}`;
  };
  const prd = posts.find((p) => p.text.startsWith('PRD:'));
  const analysis = posts.find((p) => p.text.startsWith('Analysis of the PRD'));
  const checks: Check[] = await gradeInterview(
    c,
    {
      ended,
      answers,
      ...(prd ? { prd: full(prd.ts) } : {}),
      ...(analysis ? { analysis: full(analysis.ts) } : {}),
    },
    session.judge,
  );
  return {
    verdict: verdictOf(withFault(session, id, prd !== undefined, checks)),
    ...(prdAt ? { firstAnswerMs: prdAt - started } : {}),
    endMs,
    conversationIds: [id],
    gradingMs: Date.now() - graded,
  };
}
