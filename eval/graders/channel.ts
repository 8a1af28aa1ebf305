import type { ChannelCase, ChannelStep } from '../cases/channel.ts';
import type { Check } from '../types.ts';
import { type JudgeTransport, judgedCheck } from './judge.ts';

/**
 * The channel grader, by code: for each message, whether the bot answered (a reply between it
 * and the next message) must be what the case expects; an answer must contain one of its
 * `mentions` and none of its `mustNotContain`. Answer quality beyond words is the judge's.
 */

export function gradeChannel(
  steps: readonly ChannelStep[],
  replies: readonly (string | undefined)[],
): Check[] {
  const checks: Check[] = [];
  steps.forEach((step, i) => {
    const reply = replies[i];
    const answered = reply !== undefined;
    const label = `message ${i + 1}`;
    checks.push({
      name: `${label}: ${step.expect}`,
      pass: answered === (step.expect === 'answer'),
      detail: answered ? `answered "${reply.slice(0, 120)}"` : 'stayed silent',
    });
    if (!answered || step.expect !== 'answer') return;
    const lower = reply.toLowerCase();
    if (step.mentions) {
      const hit = step.mentions.find((w) => lower.includes(w.toLowerCase()));
      checks.push({
        name: `${label}: says`,
        pass: hit !== undefined,
        detail: hit ? `says ${hit}` : `says none of ${step.mentions.join(', ')}`,
      });
    }
    if (step.mustNotContain) {
      const leak = step.mustNotContain.find((w) => lower.includes(w.toLowerCase()));
      checks.push({
        name: `${label}: withholds`,
        pass: leak === undefined,
        detail: leak ? `contains ${leak}` : 'contains nothing it must not',
      });
    }
  });
  return checks;
}

/**
 * A channel case's whole grade: the code checks, then the judge on every answer whose step has
 * a rubric (not judged, without a judge: failed).
 */
export async function gradeChannelCase(
  c: ChannelCase,
  replies: readonly (string | undefined)[],
  transport: JudgeTransport | undefined,
): Promise<Check[]> {
  const checks = gradeChannel(c.steps, replies);
  for (const [i, step] of c.steps.entries()) {
    const reply = replies[i];
    if (!step.rubric || reply === undefined || step.expect !== 'answer') continue;
    const context = c.steps
      .slice(0, i + 1)
      .map((s) => `${s.user}: ${s.text}`)
      .join('\n');
    checks.push(
      await judgedCheck(
        `message ${i + 1}: judge`,
        { task: 'Answer a question in a Slack channel', context, answer: reply, rubric: [step.rubric] },
        transport,
      ),
    );
  }
  return checks;
}
