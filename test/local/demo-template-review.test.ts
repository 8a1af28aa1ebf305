import { describe, expect, it } from 'vitest';
import { type MinedRecords, mineRecords } from '../../lambdas/log-analysis/mine.ts';
import { reviewTemplates } from '../../lambdas/log-analysis/template-review.ts';
import { demoTemplateReview, isTemplateReview } from '../../local/model/demo-templates.ts';
import { demoModelText, useDemoModel } from '../agents/support.ts';

const demoModel = useDemoModel();

/** The offline demo model's one rule for the log template review: a word holding a digit is a variable. */
describe('the demo model on a template review', () => {
  it('answers a corrected template, or the same event when the corrected text is another template', async () => {
    // Three templates seen once each, asked about; a frequent one, listed for sameAs.
    const lines = ['worker w7 restarted', 'disk sda1 full', 'queue drained'];
    const templates = [
      { id: '1', template: 'disk <*> full', count: 40 },
      ...lines.map((template, i) => ({ id: String(i + 4), template, count: 1 })),
    ];
    const mined: MinedRecords = {
      templates,
      templateIds: ['4', '5', '6'],
      text: new Map(templates.map((t) => [t.id, t.template])),
      samples: new Map(),
    };
    const prompts: string[] = [];
    await reviewTemplates(lines, mined, {
      advisor: async (prompt) => {
        prompts.push(prompt);
        return { text: '{"answers":[]}', usage: { inputTokens: 1, outputTokens: 1 } };
      },
    });
    const [prompt = ''] = prompts;
    expect(prompts).toHaveLength(1);
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
        const text = await demoModelText(demoModel(), {
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
