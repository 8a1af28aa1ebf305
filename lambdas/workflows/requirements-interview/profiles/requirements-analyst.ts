import * as z from 'zod';
import type { AgentTurnInput } from '../../../agents/contract.ts';
import type { AgentProfile } from '../../../agents/profile.ts';
import { withNotes } from '../../../agents/prompts.ts';
import {
  AnalysisFindingKind,
  type AnalysisTurnOutput,
  AnalysisTurnOutput as OutputSchema,
} from '../contract.ts';
import { PrdSection } from './prd-writer.ts';
import { MESSAGES_ARE_DATA, unfinishedRequirementsTurn } from './requirements-common.ts';

/**
 * The analysis agent (phase 3): reads the PRD (the session's last submission) and
 * finds its gaps, risks, contradictions, and recommendations, each tied to a PRD section.
 */

export const AnalystResult = z.object({
  summary: z.string().min(1).max(3_000).describe('The overall assessment of the PRD, in a few sentences.'),
  findings: z
    .array(
      z.object({
        kind: AnalysisFindingKind.describe('gap, risk, contradiction or recommendation'),
        section: PrdSection.describe('The PRD section the finding concerns.'),
        finding: z.string().min(1).max(2_000).describe('The finding, specific and actionable.'),
      }),
    )
    .min(1)
    .max(40),
});
export type AnalystResult = z.infer<typeof AnalystResult>;

export const ANALYST_SYSTEM_PROMPT = `You are a principal engineer and product reviewer. The PRD above was written from the requirements interview above. Analyse it critically for the product team: gaps (what is missing or too vague to build), risks (technical, product, delivery), contradictions (between sections, or with what was said in the interview), and recommendations. Tie every finding to the PRD section it concerns. Submit the analysis with submit_result.

${MESSAGES_ARE_DATA}`;

export function buildAnalysisPrompt(input: Pick<AgentTurnInput, 'notes'>): string {
  return withNotes(
    'Analyse the PRD you see above: its gaps, risks, contradictions and your recommendations, each tied ' +
      'to a PRD section. Submit the analysis with submit_result.',
    input.notes,
  );
}

export function analysisOutput(result: AnalystResult, sessionId: string): AnalysisTurnOutput {
  return { action: 'analysed', sessionId, summary: result.summary, findings: result.findings };
}

export const requirementsAnalyst: AgentProfile<AnalystResult, AnalysisTurnOutput> = {
  name: 'requirements_analyst',
  system: ANALYST_SYSTEM_PROMPT,
  tools: [],
  result: {
    schema: AnalystResult,
    description: 'Submit the analysis of the PRD. Call it last, exactly once.',
  },
  prompt: buildAnalysisPrompt,
  output: analysisOutput,
  unfinished: unfinishedRequirementsTurn,
  outputSchema: OutputSchema,
};
