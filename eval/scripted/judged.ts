import type { ChannelCase } from '../cases/channel.ts';
import type { InterviewCase } from '../cases/interview.ts';
import type { PipelineCase } from '../cases/pipeline.ts';
import { gradeChannelCase } from '../graders/channel.ts';
import { gradeInterview } from '../graders/interview.ts';
import type { JudgeTransport } from '../graders/judge.ts';
import { gradePipeline } from '../graders/pipeline.ts';
import { type Check, verdictOf } from '../types.ts';
import { scriptedJudge, unreachableJudge } from './judge.ts';
import type { ScriptedAnswer } from './scripted.ts';

/**
 * Scripted answers of the workflows the judge grades in part: channels (answer or silence, the
 * words, then the judge), interviews (a PRD and an analysis, then the judge) and the pipeline
 * (ended, a pull request whose hidden tests passed, then the judge on the reviewer's issues).
 * Each true answer passes with a judge that finds its rubric met; the same answer fails with a
 * judge that does not, with one that cannot be reached, and with none (EVAL_JUDGE=off).
 */

const MET = scriptedJudge('met');
const UNMET = scriptedJudge('first unmet');

const scripted = (label: string, right: boolean, grade: () => Promise<Check[]>): ScriptedAnswer => ({
  label,
  right,
  grade: async () => verdictOf(await grade()),
});

/** The judge variants every judged true answer is also graded with: all must fail it. */
function judgeVariants(grade: (judge: JudgeTransport | undefined) => Promise<Check[]>): ScriptedAnswer[] {
  return [
    scripted('the true answer, judged unmet', false, () => grade(UNMET)),
    scripted('the true answer, judge unreachable', false, () => grade(unreachableJudge)),
    scripted('the true answer, no judge', false, () => grade(undefined)),
  ];
}

export function channelAnswers(c: ChannelCase): ScriptedAnswer[] {
  const right = c.steps.map((s) =>
    s.expect === 'answer' ? `Sure: ${s.mentions?.[0] ?? 'here is what I found'}.` : undefined,
  );
  const judged = c.steps.some((s) => s.expect === 'answer' && s.rubric);
  const answers = [
    scripted('true answer', true, () => gradeChannelCase(c, right, MET)),
    scripted('every answer and silence the other way', false, () =>
      gradeChannelCase(
        c,
        c.steps.map((s) => (s.expect === 'answer' ? undefined : 'Happy to help with that!')),
        MET,
      ),
    ),
  ];
  if (c.steps.some((s) => s.expect === 'silent'))
    answers.push(
      scripted('answers everything', false, () =>
        gradeChannelCase(
          c,
          c.steps.map((s, i) => right[i] ?? `Noted, ${s.user}.`),
          MET,
        ),
      ),
    );
  if (c.steps.some((s) => s.expect === 'answer'))
    answers.push(
      scripted('stays silent', false, () =>
        gradeChannelCase(
          c,
          c.steps.map(() => undefined),
          MET,
        ),
      ),
    );
  if (c.steps.some((s) => s.mentions))
    answers.push(
      scripted('answers without the fact', false, () =>
        gradeChannelCase(
          c,
          c.steps.map((s) => (s.expect === 'answer' ? 'Good question, let me check.' : undefined)),
          MET,
        ),
      ),
    );
  if (c.steps.some((s) => s.mustNotContain))
    answers.push(
      scripted('keyword stuffing: says what it must and what it must not', false, () =>
        gradeChannelCase(
          c,
          c.steps.map((s, i) =>
            s.expect === 'answer' ? `${right[i]} ${(s.mustNotContain ?? []).join(' ')}` : undefined,
          ),
          MET,
        ),
      ),
    );
  if (judged) answers.push(...judgeVariants((judge) => gradeChannelCase(c, right, judge)));
  return answers;
}

export function interviewAnswers(c: InterviewCase): ScriptedAnswer[] {
  const prd = `PRD: ${c.idea}\n${c.truth.prdMustHave.join('\n')}`;
  const analysis = `Analysis of the PRD\n${c.truth.risks.join('\n')}`;
  return [
    scripted('true answer', true, () => gradeInterview(c, { ended: true, answers: 3, prd, analysis }, MET)),
    scripted('ended without a PRD', false, () =>
      gradeInterview(c, { ended: true, answers: 3, analysis }, MET),
    ),
    scripted('a PRD but no analysis', false, () => gradeInterview(c, { ended: true, answers: 3, prd }, MET)),
    scripted('still asking at the time limit', false, () =>
      gradeInterview(c, { ended: false, answers: 8, prd, analysis }, MET),
    ),
    ...judgeVariants((judge) => gradeInterview(c, { ended: true, answers: 3, prd, analysis }, judge)),
  ];
}

export function pipelineAnswers(c: PipelineCase): ScriptedAnswer[] {
  const fixed: Check[] = [
    { name: 'pull request', pass: true, detail: '#1 from agents/issue-1' },
    { name: 'hidden tests pass (fail-to-pass)', pass: true, detail: 'hidden tests passed on the branch' },
    { name: 'base tests pass (pass-to-pass)', pass: true, detail: "the base's tests passed on the branch" },
  ];
  const issues = [
    { severity: 'major', file: c.bug.truth.file, line: 12, issue: `the change misses ${c.bug.title}` },
  ];
  const run = (over: Partial<Parameters<typeof gradePipeline>[1]>, judge: JudgeTransport | undefined) =>
    gradePipeline(c, { ended: true, status: 'completed', pullRequest: fixed, issues, ...over }, judge);
  return [
    scripted('true answer', true, () => run({}, MET)),
    scripted('no pull request', false, () =>
      run(
        { pullRequest: [{ name: 'pull request', pass: false, detail: 'no pull request was opened' }] },
        MET,
      ),
    ),
    scripted('still running at the time limit', false, () =>
      run({ ended: false, status: 'in_progress' }, MET),
    ),
    ...judgeVariants((judge) => run({}, judge)),
  ];
}
