import * as z from 'zod';
import type { AgentTurnInput } from '../../../agents/contract.ts';
import type { AgentProfile } from '../../../agents/profile.ts';
import { messageLines, withNotes } from '../../../agents/prompts.ts';
import { type ClarificationTurnOutput, ClarificationTurnOutput as OutputSchema } from '../contract.ts';
import { MESSAGES_ARE_DATA, unfinishedRequirementsTurn } from './requirements-common.ts';

/**
 * The clarification agent (phase 1): asks the fewest questions that most raise its
 * understanding of a product idea, and reports its confidence (0-100) with the reason. The
 * workflow compares the confidence with its threshold: below it, the questions are posted and
 * the answers come back in the next turn (of the same session); at or above it, the PRD follows.
 */

/** The threshold when the workflow does not send one (its 95%). */
export const DEFAULT_CONFIDENCE_THRESHOLD = 95;

/** The model's assessment: the input schema of `submit_result`. */
export const ClarifierResult = z.object({
  confidence: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe('0-100: how well you understand the idea, enough to write its PRD without guessing.'),
  confidence_reason: z
    .string()
    .min(1)
    .max(2_000)
    .describe('Why this confidence: what you know well, and what keeps it from being higher.'),
  understanding: z
    .string()
    .min(1)
    .max(6_000)
    .describe('Your current understanding of the idea, as a compact summary the PRD author can work from.'),
  questions: z
    .array(z.string().min(1).max(1_000))
    .max(10)
    .describe(
      'The fewest questions that most raise your understanding, most important first. ' +
        'Required below the confidence threshold; empty at or above it.',
    ),
  open_unknowns: z
    .array(z.string().min(1).max(1_000))
    .max(20)
    .nullish()
    .describe('What is still unknown or assumed, if anything.'),
});
export type ClarifierResult = z.infer<typeof ClarifierResult>;

export const CLARIFIER_SYSTEM_PROMPT = `You are a senior product manager running a requirements interview in a Slack thread. Someone has an idea for a product or feature; you interview them until you understand it well enough to write its product requirements document (PRD). You work in turns: each turn you receive the messages since your previous turn, and you end it by calling submit_result exactly once.

How to interview
- Ask the fewest questions that most raise your understanding: the problem and for whom, the goals and what is out of scope, the users and their main tasks, constraints, how success is measured. Never ask what was already answered.
- Report your confidence (0-100) that you understand the idea well enough to write its PRD without guessing, and the reason for it. Confidence grows as answers come in; be honest rather than generous.
- Below the confidence threshold the workflow gives you, ask at least one question. At or above it, ask none: the PRD is written next.
- Keep "understanding" up to date: it is what the PRD author works from. List what is still unknown in open_unknowns.

${MESSAGES_ARE_DATA}`;

function threshold(input: Pick<AgentTurnInput, 'confidenceThreshold'>): number {
  return input.confidenceThreshold ?? DEFAULT_CONFIDENCE_THRESHOLD;
}

/** The first turn: the idea; later turns: the answers since the last one. */
export function buildClarifierPrompt(
  input: Pick<AgentTurnInput, 'conversationId' | 'mode' | 'messages' | 'notes' | 'confidenceThreshold'>,
): string {
  const lines = messageLines(input.messages);
  const opening =
    input.mode === 'initial'
      ? `A new requirements interview starts. Interview id: "${input.conversationId}". The idea:\n\n${lines || '(no text came with the idea: ask what it is)'}`
      : `Answers since your last turn:\n\n${lines || '(nobody answered in this thread since your last turn)'}`;
  const task =
    `The confidence threshold is ${threshold(input)}. Assess the idea with everything said so far: ` +
    'your confidence and its reason, your understanding, and, below the threshold, the fewest questions ' +
    'that most raise it. Finish the turn by calling submit_result.';
  return withNotes(`${opening}\n\n${task}`, input.notes);
}

/** Questions are required below the threshold: without them the interview could not go on. */
export function checkClarification(
  result: ClarifierResult,
  input: Pick<AgentTurnInput, 'confidenceThreshold'>,
) {
  const limit = threshold(input);
  if (result.confidence < limit && result.questions.length === 0) {
    return `Your confidence ${result.confidence} is below the threshold ${limit}, but you asked no question: ask at least one, or raise the confidence only if it truly is ${limit} or more.`;
  }
  return undefined;
}

export function clarificationOutput(result: ClarifierResult, sessionId: string): ClarificationTurnOutput {
  return {
    action: 'assessed',
    sessionId,
    confidence: result.confidence,
    confidenceReason: result.confidence_reason,
    understanding: result.understanding,
    questions: result.questions,
    openUnknowns: result.open_unknowns ?? [],
  };
}

export const requirementsClarifier: AgentProfile<ClarifierResult, ClarificationTurnOutput> = {
  name: 'requirements_clarifier',
  system: CLARIFIER_SYSTEM_PROMPT,
  tools: [],
  result: {
    schema: ClarifierResult,
    description:
      'Submit your assessment for this turn: confidence, its reason, your understanding and your questions. ' +
      'Call it last, exactly once per turn.',
  },
  check: checkClarification,
  prompt: buildClarifierPrompt,
  output: clarificationOutput,
  unfinished: unfinishedRequirementsTurn,
  outputSchema: OutputSchema,
};
