import type { JudgeTransport } from '../graders/judge.ts';

/**
 * Scripted judges: one that replies in the asked JSON finding every rubric item met (or the
 * first one not met), and one that cannot be reached. They prove the judge's verdict is read
 * as it is meant, and that a judge that is not there fails the check.
 */

function rubricOf(message: string): string[] {
  const section = message.split('Rubric:\n')[1] ?? '';
  return [...section.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1] as string);
}

export const scriptedJudge =
  (verdict: 'met' | 'first unmet'): JudgeTransport =>
  async (_system, message) => {
    const items = rubricOf(message).map((item, i) => ({
      item,
      met: verdict === 'met' || i > 0,
      why: verdict === 'met' || i > 0 ? 'the answer does it' : 'the answer does not do it',
    }));
    return `Here is my grading.\n${JSON.stringify({ items, pass: items.every((i) => i.met) })}`;
  };

export const unreachableJudge: JudgeTransport = async () => {
  throw new Error('connect ECONNREFUSED 127.0.0.1:9');
};
