import type { ChannelStep } from '../cases/channel.ts';
import type { Check } from '../types.ts';

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
