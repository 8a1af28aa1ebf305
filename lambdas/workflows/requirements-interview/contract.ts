import * as z from 'zod';

/**
 * What the requirements interview's agent turns return to its state machine. Each
 * output carries `action`, which the workflow's Choice routes on: the agent's own action when
 * it submitted a valid result, `continue` when the turn ran out of its budget (the workflow
 * runs another), `failed` with the error after retries. Texts are capped to keep the state
 * machine's payload well under its 256 KB limit.
 */

/** The requirements interview's agents (`current_agent`, before `complete`). */
export const RequirementsTurnState = z.enum(['clarification', 'prd_generator', 'analysis']);
export type RequirementsTurnState = z.infer<typeof RequirementsTurnState>;

/** The end of a turn without a valid submission, the same for every requirements agent. */
const UnfinishedOutput = z.object({
  action: z.enum(['continue', 'failed']),
  sessionId: z.string().min(1),
  /** What the failure was, on `failed`. */
  error: z.string().max(2_000).optional(),
  /** On `failed`, when a limit held by code stopped the agent: which, in words for the requester. */
  stoppedBy: z.string().max(2_000).optional(),
});

/** The clarification agent assessed the idea: its confidence, and its questions when below the threshold. */
export const ClarificationOutput = z.object({
  action: z.literal('assessed'),
  sessionId: z.string().min(1),
  /** 0 to 100. */
  confidence: z.number().int().min(0).max(100),
  confidenceReason: z.string().max(2_000),
  /** The agent's running summary of the idea, handed to the PRD generator. */
  understanding: z.string().max(6_000),
  questions: z.array(z.string().max(1_000)).max(10),
  /** What is still unknown (listed in the PRD when the turn cap ends the interview). */
  openUnknowns: z.array(z.string().max(1_000)).max(20),
});
export type ClarificationOutput = z.infer<typeof ClarificationOutput>;

export const ClarificationTurnOutput = z.discriminatedUnion('action', [
  ClarificationOutput,
  UnfinishedOutput,
]);
export type ClarificationTurnOutput = z.infer<typeof ClarificationTurnOutput>;

/** The PRD generator wrote the PRD. */
export const PrdOutput = z.object({
  action: z.literal('written'),
  sessionId: z.string().min(1),
  title: z.string().max(200),
  /** The whole PRD as Markdown, one `##` heading per section. */
  markdown: z.string().max(60_000),
});
export type PrdOutput = z.infer<typeof PrdOutput>;

export const PrdTurnOutput = z.discriminatedUnion('action', [PrdOutput, UnfinishedOutput]);
export type PrdTurnOutput = z.infer<typeof PrdTurnOutput>;

export const AnalysisFindingKind = z.enum(['gap', 'risk', 'contradiction', 'recommendation']);
export type AnalysisFindingKind = z.infer<typeof AnalysisFindingKind>;

/** The analysis agent analysed the PRD: each finding tied to the PRD section it concerns. */
export const AnalysisOutput = z.object({
  action: z.literal('analysed'),
  sessionId: z.string().min(1),
  summary: z.string().max(3_000),
  findings: z
    .array(
      z.object({
        kind: AnalysisFindingKind,
        section: z.string().max(200),
        finding: z.string().max(2_000),
      }),
    )
    .max(40),
});
export type AnalysisOutput = z.infer<typeof AnalysisOutput>;

export const AnalysisTurnOutput = z.discriminatedUnion('action', [AnalysisOutput, UnfinishedOutput]);
export type AnalysisTurnOutput = z.infer<typeof AnalysisTurnOutput>;
