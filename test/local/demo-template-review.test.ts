import { describe, expect, it } from 'vitest';
import { advisorPrompt, mineRecords, reviewTemplates } from '../../lambdas/log-analysis/index.ts';
import { demoTemplateReview, isTemplateReview } from '../../local/model/demo-templates.ts';
import { useDemoModel } from '../agents/support.ts';

const demoModel = useDemoModel();

/** The text of the demo model's reply to one Messages API request, sent over HTTP as the SDK sends it. */
async function demoModelText(request: object): Promise<string> {
  const response = await fetch(`${demoModel()}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  expect(response.status).toBe(200);
  const reply = (await response.json()) as { type: string; content: { type: string; text?: string }[] };
  expect(reply.type).toBe('message');
  return reply.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}

/** The offline demo model's one rule for the log template review: a word holding a digit is a variable. */
describe('the demo model on a template review', () => {
  it('answers a corrected template, or the same event when the corrected text is another template', () => {
    const prompt = advisorPrompt(
      [
        { id: '4', template: 'worker w7 restarted', examples: ['worker w7 restarted'] },
        { id: '5', template: 'disk sda1 full', examples: ['disk sda1 full'] },
        { id: '6', template: 'queue drained', examples: ['queue drained'] },
      ],
      [{ id: '1', template: 'disk <*> full', count: 40 }],
    );
    expect(isTemplateReview(prompt)).toBe(true);
    expect(JSON.parse(demoTemplateReview(prompt))).toEqual({
      answers: [
        { id: '4', template: 'worker <*> restarted' },
        { id: '5', sameAs: '1' },
      ],
    });
  });

  it('is what the demo model replies to the review prompt, and the review uses it', async () => {
    const lines = ['job 17 done', 'job 18 done', 'job 19 done', 'node web4 joined'];
    const mined = mineRecords(lines.map((message) => ({ message })));
    const review = await reviewTemplates(lines, mined, {
      advisor: async (prompt) => {
        const text = await demoModelText({
          model: 'demo',
          max_tokens: 100,
          messages: [{ role: 'user', content: prompt }],
        });
        return { text, usage: { inputTokens: 1, outputTokens: 1 } };
      },
    });
    expect(review.calls).toBe(1);
    expect(review.applied).toBe(1);
    expect(review.mined.templates.map((t) => t.template).sort()).toEqual(['job <*> done', 'node <*> joined']);
  });
});
