/**
 * Optional model help for templates, with a scripted advisor standing in for the model (no
 * model is called by tests): which templates are asked about, the budget, the cache, and the
 * checks every answer must pass before it is used.
 */
import { describe, expect, it } from 'vitest';
import { analyzeLogs, analyzeLogsWithReview } from '../../lambdas/log-analysis/index.ts';
import { mineRecords } from '../../lambdas/log-analysis/mine.ts';
import {
  parseAdvisorReply,
  reviewTemplates,
  type TemplateAdvisor,
  TemplateReviewCache,
  templatePattern,
} from '../../lambdas/log-analysis/template-review.ts';

const LINES = [
  ...Array.from({ length: 6 }, (_, i) => `request ${i} served in ${i * 3} ms`),
  'cache warmed by alice',
  'backup of volume home finished',
  'backup of volume data finished',
  'job sync stopped',
];

function scripted(answers: object[]): { advisor: TemplateAdvisor; prompts: string[] } {
  const prompts: string[] = [];
  const advisor: TemplateAdvisor = async (prompt) => {
    prompts.push(prompt);
    return { text: `Here: ${JSON.stringify({ answers })}`, usage: { inputTokens: 120, outputTokens: 30 } };
  };
  return { advisor, prompts };
}

const idOf = (mined: ReturnType<typeof mineRecords>, template: string) =>
  mined.templates.find((t) => t.template === template)?.id as string;

describe('reviewTemplates', () => {
  it('asks once, in one batch, about the templates with few messages, and uses an answer that matches them', async () => {
    const mined = mineRecords(LINES.map((message) => ({ message })));
    const cache = idOf(mined, 'cache warmed by alice');
    const { advisor, prompts } = scripted([{ id: cache, template: 'cache warmed by <*>' }]);
    const review = await reviewTemplates(LINES, mined, { advisor });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('message: cache warmed by alice');
    const [asked, others] = (prompts[0] as string).split('Other templates');
    expect(asked).not.toContain('request');
    expect(others).toContain('request <*> served in <*> ms');
    // One message each: `cache warmed by alice`, the two `backup` forks, `job sync stopped`.
    expect(review.asked).toBe(4);
    expect(review.calls).toBe(1);
    expect(review.applied).toBe(1);
    expect(review.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
    expect(review.mined.text.get(cache)).toBe('cache warmed by <*>');
    expect(review.mined.templates.map((t) => t.template)).toContain('cache warmed by <*>');
  });

  it('refuses answers that do not match the messages, unknown ids and chained merges', async () => {
    const mined = mineRecords(LINES.map((message) => ({ message })));
    const cache = idOf(mined, 'cache warmed by alice');
    const job = idOf(mined, 'job sync stopped');
    const { advisor } = scripted([
      { id: cache, template: 'cache cooled by <*>' },
      { id: '999', template: 'x' },
      { id: job, sameAs: cache },
    ]);
    const review = await reviewTemplates(LINES, mined, { advisor });
    expect(review.applied).toBe(0);
    expect(review.refused).toBe(3);
    expect(review.mined.text).toEqual(mined.text);
    expect(review.mined.templateIds).toEqual(mined.templateIds);
  });

  it('merges a template into the same event when that template matches its messages', async () => {
    const lines = ['user bob logged in', 'user bob logged in', 'user carol  logged in from vpn'];
    const mined = mineRecords(lines.map((message) => ({ message })));
    // Its one message's spacing between constant words is kept (constantSpacing).
    const vpn = idOf(mined, 'user carol  logged in from vpn');
    expect(vpn).toBeDefined();
    const plain = idOf(mined, 'user bob logged in');
    const { advisor } = scripted([
      { id: plain, template: 'user <*> logged in<*>' },
      { id: vpn, sameAs: plain },
    ]);
    const review = await reviewTemplates(lines, mined, { advisor });
    expect(review.applied).toBe(2);
    expect(review.mined.templates).toEqual([{ id: plain, template: 'user <*> logged in<*>', count: 3 }]);
    expect(review.mined.templateIds).toEqual([plain, plain, plain]);
  });

  it('answers a template from the cache the next time: no second call', async () => {
    const cache = new TemplateReviewCache();
    const mined = mineRecords(LINES.map((message) => ({ message })));
    const first = scripted([{ id: idOf(mined, 'cache warmed by alice'), template: 'cache warmed by <*>' }]);
    await reviewTemplates(LINES, mined, { advisor: first.advisor, cache });
    const again = mineRecords(LINES.map((message) => ({ message })));
    const second = scripted([]);
    const review = await reviewTemplates(LINES, again, { advisor: second.advisor, cache });
    expect(second.prompts).toHaveLength(0);
    expect(review.cached).toBe(4);
    expect(review.calls).toBe(0);
    expect(review.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(review.mined.templates.map((t) => t.template)).toContain('cache warmed by <*>');
  });

  it('asks about at most maxTemplates templates, and none when every template has enough messages', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `event${String.fromCharCode(97 + i)} happened once`);
    const mined = mineRecords(lines.map((message) => ({ message })));
    const { advisor, prompts } = scripted([]);
    const review = await reviewTemplates(lines, mined, { advisor, maxTemplates: 5 });
    expect(review.asked).toBe(5);
    const asked = (prompts[0] as string).split('Other templates')[0] as string;
    expect(asked.match(/^- id /gm)?.length).toBe(5);
    const busy = Array.from({ length: 10 }, (_, i) => `tick ${i}`);
    const none = scripted([]);
    const quiet = await reviewTemplates(busy, mineRecords(busy.map((message) => ({ message }))), {
      advisor: none.advisor,
    });
    expect(none.prompts).toHaveLength(0);
    expect(quiet.asked).toBe(0);
  });

  it('forgets the oldest cached template past its size', () => {
    const cache = new TemplateReviewCache(2);
    cache.set('a', {});
    cache.set('b', {});
    cache.set('c', { template: 'c <*>' });
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toEqual({ template: 'c <*>' });
  });
});

describe('analyzeLogsWithReview', () => {
  it('analyzes with the reviewed templates and returns the review counts for the ledger', async () => {
    const plain = analyzeLogs(LINES);
    const cache = plain.templates.find((t) => t.template === 'cache warmed by alice')?.id as string;
    const { advisor } = scripted([{ id: cache, template: 'cache warmed by <*>' }]);
    const { analysis, review } = await analyzeLogsWithReview(LINES, { review: { advisor } });
    expect(analysis.templates.map((t) => t.template)).toContain('cache warmed by <*>');
    expect(analysis.summary).toContain('cache warmed by <*>');
    expect(analysis.lineCount).toBe(plain.lineCount);
    expect(review).toMatchObject({
      asked: 4,
      applied: 1,
      calls: 1,
      usage: { inputTokens: 120, outputTokens: 30 },
    });
  });
});

describe('parseAdvisorReply and templatePattern', () => {
  it('reads the JSON in a reply and nothing from a reply without valid JSON', () => {
    expect(parseAdvisorReply('ok {"answers":[{"id":"1","sameAs":"2"}]} done')).toEqual([
      { id: '1', sameAs: '2' },
    ]);
    expect(parseAdvisorReply('no json here')).toEqual([]);
    expect(parseAdvisorReply('{"answers": "all good"}')).toEqual([]);
    expect(parseAdvisorReply('{not json}')).toEqual([]);
  });

  it('matches a template against messages: <*> any text, whitespace runs any whitespace', () => {
    expect(templatePattern('took <*> ms (<*>)').test('took  12 ms (fast)')).toBe(true);
    expect(templatePattern('took <*> ms').test('took 12 s')).toBe(false);
  });
});
