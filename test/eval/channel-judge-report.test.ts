import { describe, expect, it } from 'vitest';
import { CHANNEL_CASES } from '../../eval/cases/channel.ts';
import { gradeChannel } from '../../eval/graders/channel.ts';
import { JUDGE_PROMPT, judgeMessage, parseJudgeReply } from '../../eval/graders/judge.ts';
import { buildReport, percentile, summarize, toMarkdown } from '../../eval/report.ts';
import { type CaseResult, NO_USAGE } from '../../eval/types.ts';

describe('the channel grader', () => {
  const steps = [
    { user: 'U_A', text: 'lunch?', expect: 'silent' as const },
    {
      user: 'U_A',
      text: '<@U_BOT> when?',
      expect: 'answer' as const,
      mentions: ['14:00'],
      mustNotContain: ['xoxb'],
    },
  ];

  it('passes silence where expected and an answer that says what it must', () => {
    expect(gradeChannel(steps, [undefined, 'At 14:00 UTC.']).every((c) => c.pass)).toBe(true);
  });

  it('fails an answer to chatter, a missing answer, a wrong answer and a leak', () => {
    expect(gradeChannel(steps, ['Hi!', 'At 14:00.'])[0]?.pass).toBe(false);
    expect(gradeChannel(steps, [undefined, undefined])[1]?.pass).toBe(false);
    expect(gradeChannel(steps, [undefined, 'At noon.']).find((c) => c.name.endsWith('says'))?.pass).toBe(
      false,
    );
    expect(
      gradeChannel(steps, [undefined, '14:00, token xoxb-1']).find((c) => c.name.endsWith('withholds'))?.pass,
    ).toBe(false);
  });

  it('has ten situations, with both answers and silences', () => {
    expect(CHANNEL_CASES).toHaveLength(10);
    const expects = CHANNEL_CASES.flatMap((c) => c.steps.map((s) => s.expect));
    expect(expects).toContain('answer');
    expect(expects).toContain('silent');
  });
});

describe('the judge', () => {
  const rubric = ['Names the root cause', 'Proposes a rollback'];

  it('passes when every rubric item is met, and fails with the unmet ones named', () => {
    const met = JSON.stringify({
      items: rubric.map((item) => ({ item, met: true, why: 'said' })),
      pass: true,
    });
    expect(parseJudgeReply(met, rubric).pass).toBe(true);
    const one = JSON.stringify({
      items: [
        { item: rubric[0], met: true, why: '' },
        { item: rubric[1], met: false, why: 'absent' },
      ],
    });
    expect(parseJudgeReply(one, rubric)).toMatchObject({
      pass: false,
      reason: expect.stringContaining('Proposes a rollback (absent)'),
    });
  });

  it('fails a reply that is not the asked JSON or grades too few items', () => {
    expect(parseJudgeReply('Looks good to me!', rubric).pass).toBe(false);
    expect(parseJudgeReply(JSON.stringify({ items: [{ item: 'x', met: true }] }), rubric).pass).toBe(false);
  });

  it("puts the task, context, answer and rubric in the judge's message", () => {
    const message = judgeMessage({ task: 'T', context: 'C', answer: 'A', rubric });
    expect(message).toContain('1. Names the root cause');
    expect(JUDGE_PROMPT).toContain('JSON only');
  });
});

const result = (id: string, pass: boolean, endMs: number, extra: Partial<CaseResult> = {}): CaseResult => ({
  id,
  workflow: 'incident_investigation',
  title: id,
  iteration: 1,
  pass,
  reason: pass ? 'ok' : 'component: wrong',
  checks: [],
  endMs,
  usage: { ...NO_USAGE, toolCalls: 3 },
  overheadMs: { setup: 1000, grading: 10 },
  ...extra,
});

describe('the report', () => {
  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
    expect(percentile([], 50)).toBeNull();
  });

  it('sums each workflow: pass rate, cost, latency and tool calls', () => {
    const [summary] = summarize([
      result('a', true, 10_000, { costUsd: 0.1, firstAnswerMs: 4000 }),
      result('b', false, 30_000, { costUsd: 0.3 }),
    ]);
    expect(summary).toMatchObject({
      runs: 2,
      passed: 1,
      passRate: 0.5,
      toolCalls: 6,
      endMs: { p50: 10_000, p95: 30_000 },
    });
    expect(summary?.costUsd).toBeCloseTo(0.4);
    expect(summary?.firstAnswerMs.p50).toBe(4000);
  });

  it("labels the offline demo model's figures as such, and a real model's as its own", () => {
    const run = {
      mode: 'demo' as const,
      commit: 'abc',
      startedAt: 'now',
      wallMs: 1,
      iterations: 1,
      concurrency: 1,
      judgeAvailable: false,
    };
    const demo = toMarkdown(
      buildReport({ ...run, model: 'offline-demo-model', realModel: false }, [result('a', true, 1)]),
    );
    expect(demo).toContain("OFFLINE DEMO MODEL's");
    const real = toMarkdown(
      buildReport({ ...run, mode: 'live', model: 'claude-x', realModel: true }, [result('a', true, 1)]),
    );
    expect(real).not.toContain('DEMO');
    expect(real).toContain('**claude-x** (live)');
  });
});
