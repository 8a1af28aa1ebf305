import * as z from 'zod';
import type { ProtectedGateVerdict } from '../../changes/gate.ts';
import { personLine } from '../../kernel/people-text.ts';
import { unbuiltHead } from './built-head.ts';
import {
  AnalysisSubmission,
  AnswerSubmission,
  ChangesSubmission,
  type HandOff,
  type HandOffInput,
  ReviewSubmission,
  TriageSubmission,
} from './contract.ts';
import { limitReached, type PipelineLimits, type PipelineSpend } from './limits.ts';
import { answeredNotes, notesFor, questionNotes } from './notes.ts';
import { excuseSubject, excusesToGrant, isExcuse } from './report-excuse.ts';
import type { IssueState, ModelAgent, Question } from './state.ts';

/**
 * The orchestrator's hand-off, in code: validates what an agent submitted, writes
 * it into its section of the document, and decides where the pipeline goes next. It holds the
 * limits (attempts, tokens and cost, wall clock) before anything else runs. Pure: the handler
 * loads the document and the spend, and stores what this returns.
 */

export interface HandOffContext {
  limits: PipelineLimits;
  /**
   * The protected-paths gate on the work branch's real diff (lambdas/changes/gate.ts), which
   * the handler runs when the reviewer submits: the writer's own list of changes never counts.
   */
  protectedGate?: ProtectedGateVerdict;
  spend: PipelineSpend;
  nowMs: number;
}

export interface HandOffResult {
  state: IssueState;
  handOff: HandOff;
}

const SUBMISSIONS = {
  triage: TriageSubmission,
  analyst: AnalysisSubmission,
  writer: ChangesSubmission,
  reviewer: ReviewSubmission,
} as const;

/** Ends the pipeline `blocked` with the reason. */
export function block(state: IssueState, reason: string): HandOffResult {
  state.pipeline.status = 'blocked';
  state.pipeline.blocked_reason = reason.slice(0, 2_000);
  state.learnings.outcome = `blocked: ${reason}`.slice(0, 2_000);
  return { state, handOff: { next: 'blocked', attempt: state.pipeline.attempt, notes: [], reason } };
}

/** Sends the pipeline to `agent`'s own turn. */
function goTo(state: IssueState, agent: ModelAgent): HandOffResult {
  state.pipeline.current_agent = agent;
  return { state, handOff: { next: agent, attempt: state.pipeline.attempt, notes: notesFor(agent, state) } };
}

/**
 * Sends the writer back with `feedback` (a rejection or a failed build), or ends the pipeline
 * `failed` when it had its `max_attempts`. The first attempt starts here too (no feedback).
 */
export function toWriter(state: IssueState, feedback: string | null): HandOffResult {
  const { pipeline } = state;
  if (pipeline.attempt >= pipeline.max_attempts) {
    const reason = `Writer-Reviewer loop exhausted after ${pipeline.attempt} attempts`;
    pipeline.status = 'failed';
    pipeline.failure_reason = reason;
    if (feedback !== null) state.review.feedback_for_writer = feedback.slice(0, 12_000);
    state.learnings.outcome = `failed: ${reason}`;
    return { state, handOff: { next: 'failed', attempt: pipeline.attempt, notes: [], reason } };
  }
  pipeline.attempt += 1;
  state.writer.attempt = pipeline.attempt;
  state.writer.completed = false;
  state.writer.previous_feedback = feedback === null ? null : feedback.slice(0, 12_000);
  state.build.completed = false;
  // The writer moves the branch: no build stands for it until the next one is judged.
  state.build.built_head = null;
  state.review.completed = false;
  return goTo(state, 'writer');
}

/** Where a hand-off goes once its agent's turn (or the answer to its question) is in. */
export function handOff(state: IssueState, input: HandOffInput, ctx: HandOffContext): HandOffResult {
  const reached = limitReached(state, ctx.spend, ctx.limits, ctx.nowMs);
  if (reached !== undefined) return block(state, `Stopped at a hard limit: ${reached}.`);
  if (input.turn?.stoppedByPerson && (input.mode === 'work' || input.mode === 'answer'))
    return afterStop(state, input);
  switch (input.mode) {
    case 'work':
      return afterWork(state, input, ctx);
    case 'answer':
      return afterAnswer(state, input);
    case 'people':
      return afterPeople(state, input);
    case 'approval':
      return afterApproval(state, input);
  }
}

/**
 * A person stopped the agent's turn (Stop): nothing else stops. The pipeline waits for people,
 * as after a question to them: the stopped agent's work (or the question it was answering, for
 * the agent that asked it) goes on with what they write.
 */
function afterStop(state: IssueState, input: HandOffInput): HandOffResult {
  const attempt = state.pipeline.attempt;
  const asker = input.mode === 'answer' ? input.previous?.asker : undefined;
  const question = asker === undefined ? undefined : lastOpenQuestion(state, asker);
  if (asker !== undefined && question !== undefined) {
    const reason = `${question.question} (the ${input.agent} was stopped before it answered)`;
    return { state, handOff: { next: 'ask_people', attempt, notes: [], asker, reason } };
  }
  const reason = 'I was stopped before I finished. Say how I should go on.';
  state.communication.escalations.push({ agent: input.agent, reason, requires_human: true, resolved: false });
  return { state, handOff: { next: 'ask_people', attempt, notes: [], asker: input.agent, reason } };
}

function afterWork(state: IssueState, input: HandOffInput, ctx: HandOffContext): HandOffResult {
  const { agent, turn } = input;
  if (turn === undefined) return block(state, `The ${agent}'s turn returned nothing.`);
  if (turn.action === 'continue') return goTo(state, agent);
  if (turn.action === 'blocked')
    return block(state, `The ${agent} could not finish: ${turn.reason ?? 'no reason given'}`);
  const parsed = SUBMISSIONS[agent].safeParse(turn.submission);
  if (!parsed.success) {
    // The agent turn already sent invalid submissions back twice; this is the document's own guard.
    return block(state, `The ${agent}'s output breaks the schema: ${z.prettifyError(parsed.error)}`);
  }
  const submission = parsed.data;
  for (const observation of submission.observations ?? []) {
    state.learnings.observations.push({ agent, ...observation });
  }
  if (submission.question !== undefined) {
    const question: Question = { from: agent, ...submission.question, answered: false, answer: null };
    state.communication.questions.push(question);
    return ask(state, question);
  }
  if (submission.escalation !== undefined) {
    state.communication.escalations.push({ agent, ...submission.escalation, resolved: false });
    if (submission.escalation.requires_human) {
      return {
        state,
        handOff: {
          next: 'ask_people',
          attempt: state.pipeline.attempt,
          notes: [],
          asker: agent,
          reason: submission.escalation.reason,
        },
      };
    }
  }
  switch (agent) {
    case 'triage':
      return afterTriage(state, TriageSubmission.parse(submission));
    case 'analyst':
      return afterAnalysis(state, AnalysisSubmission.parse(submission));
    case 'writer':
      return afterChanges(state, ChangesSubmission.parse(submission));
    case 'reviewer':
      return afterReview(state, ReviewSubmission.parse(submission), ctx);
  }
}

function ask(state: IssueState, question: Question): HandOffResult {
  const attempt = state.pipeline.attempt;
  if (question.to === 'people') {
    return {
      state,
      handOff: { next: 'ask_people', attempt, notes: [], asker: question.from, reason: question.question },
    };
  }
  if (question.to === question.from) return block(state, `The ${question.from} asked itself a question.`);
  return {
    state,
    handOff: {
      next: 'ask_agent',
      attempt,
      notes: questionNotes(question, state),
      asker: question.from,
      asked: question.to,
    },
  };
}

function afterTriage(state: IssueState, t: TriageSubmission): HandOffResult {
  state.issue.type = t.type;
  state.triage = {
    completed: true,
    scope: t.scope,
    complexity: t.complexity,
    should_proceed: t.should_proceed,
    rejection_reason: t.should_proceed ? null : (t.rejection_reason ?? 'No reason given.'),
  };
  if (!t.should_proceed) {
    const reason = state.triage.rejection_reason ?? 'No reason given.';
    state.pipeline.status = 'completed';
    state.learnings.outcome = `stopped by triage: ${reason}`.slice(0, 2_000);
    return { state, handOff: { next: 'stopped', attempt: 0, notes: [], reason } };
  }
  return goTo(state, 'analyst');
}

function afterAnalysis(state: IssueState, a: AnalysisSubmission): HandOffResult {
  state.analysis = {
    completed: true,
    files: a.files,
    patterns: a.patterns,
    test_requirement: a.test_requirement,
    must_do: a.must_do,
    must_not_do: a.must_not_do,
    brief: a.brief,
  };
  return toWriter(state, null);
}

function afterChanges(state: IssueState, c: ChangesSubmission): HandOffResult {
  state.writer = {
    ...state.writer,
    completed: true,
    changes: c.changes,
    test_written: c.test_written,
    test_file: c.test_file ?? null,
    summary: c.summary,
  };
  state.pipeline.current_agent = 'build';
  return { state, handOff: { next: 'build', attempt: state.pipeline.attempt, notes: [] } };
}

function afterReview(state: IssueState, r: ReviewSubmission, ctx: HandOffContext): HandOffResult {
  state.review = {
    completed: true,
    verdict: r.verdict,
    findings: r.findings,
    feedback_for_writer: r.feedback_for_writer ?? null,
  };
  if (r.verdict === 'REJECTED') {
    const issues = r.findings.issues.map(
      (i) => `- ${i.file}${i.line ? `:${i.line}` : ''} (${i.severity}): ${i.issue}`,
    );
    return toWriter(
      state,
      [r.feedback_for_writer ?? 'The reviewer rejected the change.', ...issues].join('\n'),
    );
  }
  if (r.verdict === 'NEEDS_INFO') {
    const question: Question = {
      from: 'reviewer',
      to: 'people',
      question: r.feedback_for_writer ?? 'The reviewer needs more information before approving.',
      answered: false,
      answer: null,
    };
    state.communication.questions.push(question);
    return ask(state, question);
  }
  state.pipeline.current_agent = 'committer';
  const gate = ctx.protectedGate;
  if (gate === undefined)
    return block(
      state,
      'The changed files were not checked against the protected paths, so no pull request is opened.',
    );
  const unbuilt = unbuiltHead(state, gate.headSha);
  if (unbuilt !== undefined) return block(state, unbuilt);
  if (gate.verdict === 'refused') return block(state, gate.reason);
  state.commit.checked_head = gate.headSha;
  // What a person must grant: protected paths, and a failure excused on anything but CodeBuild's statuses.
  const asks = [
    // The test files the branch changes, once: the protected paths' request lists them too.
    ...excusesToGrant(state, gate.verdict === 'approval' ? '' : gate.tests).map((excuse) => ({
      reason: excuse,
      text: excuse,
    })),
    ...(gate.verdict === 'approval' ? [{ reason: gate.reason, text: gate.approvalText }] : []),
  ];
  if (asks.length > 0) {
    for (const ask of asks)
      state.communication.escalations.push({
        agent: 'reviewer',
        reason: ask.reason.slice(0, 2_000),
        requires_human: true,
        resolved: false,
      });
    const reason = asks
      .map((a) => a.text)
      .join('\n\n')
      .slice(0, 2_000);
    return { state, handOff: { next: 'approval', attempt: state.pipeline.attempt, notes: [], reason } };
  }
  return { state, handOff: { next: 'committer', attempt: state.pipeline.attempt, notes: [] } };
}

/** How an escalation for protected paths begins (the gate's reason, lambdas/changes/gate.ts). */
export const SENSITIVE_PREFIX = 'The change touches protected paths';

function lastOpenQuestion(state: IssueState, from: ModelAgent | undefined): Question | undefined {
  return [...state.communication.questions].reverse().find((q) => !q.answered && q.from === from);
}

function afterAnswer(state: IssueState, input: HandOffInput): HandOffResult {
  const asker = input.previous?.asker;
  const question = lastOpenQuestion(state, asker);
  if (asker === undefined || question === undefined)
    return block(state, 'An answer came for no open question.');
  const turn = input.turn;
  if (turn?.action !== 'submitted')
    return block(state, `The ${input.agent} could not answer the ${asker}: ${turn?.reason ?? 'no answer'}`);
  const parsed = AnswerSubmission.safeParse(turn.submission);
  if (!parsed.success) return block(state, `The ${input.agent}'s answer breaks the schema.`);
  question.answered = true;
  question.answer = parsed.data.answer;
  state.pipeline.current_agent = asker;
  return {
    state,
    handOff: { next: asker, attempt: state.pipeline.attempt, notes: answeredNotes(asker, question, state) },
  };
}

function afterPeople(state: IssueState, input: HandOffInput): HandOffResult {
  const asker = input.previous?.asker;
  if (asker === undefined) return block(state, 'People answered, but nobody had asked.');
  if (input.timedOut) return block(state, `Nobody answered the ${asker}'s question in time.`);
  // The answers that count were checked by the caller (answers.ts): each one JSON line of data.
  const answer = (input.messages ?? []).map((m) => personLine({ ...m, verified: true }, 'label')).join('\n');
  if (answer === '') return block(state, `The ${asker}'s question got no usable answer.`);
  const question = lastOpenQuestion(state, asker);
  if (question !== undefined) {
    question.answered = true;
    question.answer = answer.slice(0, 4_000);
  }
  for (const escalation of state.communication.escalations) {
    if (escalation.agent === asker && !escalation.resolved) escalation.resolved = true;
  }
  state.pipeline.current_agent = asker;
  const answered: Question = question ?? {
    from: asker,
    to: 'people',
    question: input.previous?.reason ?? 'escalation',
    answered: true,
    answer: answer.slice(0, 4_000),
  };
  return {
    state,
    handOff: { next: asker, attempt: state.pipeline.attempt, notes: answeredNotes(asker, answered, state) },
  };
}

/** The approver's press on the protected change or the excused failure (or none in time). */
function afterApproval(state: IssueState, input: HandOffInput): HandOffResult {
  const open = state.communication.escalations.filter(
    (e) => (e.reason.startsWith(SENSITIVE_PREFIX) || isExcuse(e.reason)) && !e.resolved,
  );
  const approval = input.approval;
  // The block names what was refused: each escalation's reason lists the files or the checks.
  const what = open.map((e) => `\n${e.reason}`).join('');
  const protectedPaths = open.some((e) => e.reason.startsWith(SENSITIVE_PREFIX));
  const subject =
    protectedPaths || open[0] === undefined ? 'the change to protected paths' : excuseSubject(open[0].reason);
  if (approval?.outcome !== 'decided') {
    return block(state, `Nobody approved ${subject} in time.${what}`);
  }
  // Who decided, kept with what they decided: the pull request names them (committer.ts).
  for (const e of open) {
    e.resolved = true;
    e.decided = {
      by: (approval.by ?? 'someone').slice(0, 50),
      decision: (approval.decision ?? 'unknown').slice(0, 50),
      at: (approval.at ?? '').slice(0, 50),
    };
  }
  if (approval.decision !== 'approve') {
    return block(state, `<@${approval.by ?? 'someone'}> rejected ${subject}.${what}`);
  }
  state.pipeline.current_agent = 'committer';
  return { state, handOff: { next: 'committer', attempt: state.pipeline.attempt, notes: [] } };
}
