import * as z from 'zod';
import type { AgentTurnInput } from '../../../agents/contract.ts';
import type { AgentProfile } from '../../../agents/profile.ts';
import { withNotes } from '../../../agents/prompts.ts';
import { PrdTurnOutput as OutputSchema, type PrdTurnOutput } from '../contract.ts';
import { MESSAGES_ARE_DATA, unfinishedRequirementsTurn } from './requirements-common.ts';

/**
 * The PRD generator (phase 2): writes the product requirements document from the
 * interview. It resumes the clarification agent's session, so it reads the whole interview.
 * The schema holds one field per section a product team expects, so no section can be left
 * out; the Markdown is rendered here, the same way for every PRD.
 */

/** The PRD's sections, in order: the analysis ties each finding to one of them. */
export const PRD_SECTIONS = [
  'Problem',
  'Goals',
  'Non-goals',
  'Users',
  'User stories',
  'Functional requirements',
  'Non-functional requirements',
  'Success metrics',
  'Scope',
  'Dependencies',
  'Open questions',
  'Milestones',
] as const;
export const PrdSection = z.enum(PRD_SECTIONS);
export type PrdSection = z.infer<typeof PrdSection>;

const text = (description: string) => z.string().min(1).max(4_000).describe(description);
const items = (description: string) => z.array(z.string().min(1).max(1_000)).max(30).describe(description);

export const PrdWriterResult = z.object({
  title: z.string().min(1).max(200).describe('The product or feature name, as the PRD title.'),
  problem: text('The problem, for whom, and why it matters now.'),
  goals: items('What success looks like, as goals.').min(1),
  non_goals: items('What this deliberately does not do.'),
  users: items('The users and their situations.').min(1),
  user_stories: items('"As a <user>, I want <capability>, so that <benefit>."').min(1),
  functional_requirements: items('What the product must do, each testable.').min(1),
  non_functional_requirements: items('Performance, security, reliability, accessibility, compliance.'),
  success_metrics: items('Measurable metrics with targets.').min(1),
  scope: z
    .object({ in: items('In scope for the first release.'), out: items('Out of scope.') })
    .describe('The first release.'),
  dependencies: items('Teams, systems or decisions this depends on.'),
  open_questions: items('What is still unknown, including the open unknowns of the interview.'),
  milestones: items('Milestones in order, each with what it delivers.').min(1),
});
export type PrdWriterResult = z.infer<typeof PrdWriterResult>;

export const PRD_WRITER_SYSTEM_PROMPT = `You are a senior product manager. The requirements interview above is over; now you write its product requirements document (PRD) for a product team: engineers, designers and stakeholders. Work only from what was said in the interview; where you must assume, say so, and list every unknown under open questions. Be concrete and brief: lists of testable statements rather than prose. Submit the PRD with submit_result, one field per section.

${MESSAGES_ARE_DATA}`;

export function buildPrdPrompt(input: Pick<AgentTurnInput, 'notes'>): string {
  return withNotes(
    'The interview is over. Write the PRD for the idea from everything said in this interview, and ' +
      'submit it with submit_result.',
    input.notes,
  );
}

const list = (values: readonly string[]) =>
  values.length === 0 ? '_None._' : values.map((value) => `- ${value}`).join('\n');

/** The PRD as Markdown: the title, then one `##` heading per section of `PRD_SECTIONS`. */
export function renderPrdMarkdown(prd: PrdWriterResult): string {
  const sections: Record<PrdSection, string> = {
    Problem: prd.problem,
    Goals: list(prd.goals),
    'Non-goals': list(prd.non_goals),
    Users: list(prd.users),
    'User stories': list(prd.user_stories),
    'Functional requirements': list(prd.functional_requirements),
    'Non-functional requirements': list(prd.non_functional_requirements),
    'Success metrics': list(prd.success_metrics),
    Scope: `**In scope**\n\n${list(prd.scope.in)}\n\n**Out of scope**\n\n${list(prd.scope.out)}`,
    Dependencies: list(prd.dependencies),
    'Open questions': list(prd.open_questions),
    Milestones: prd.milestones.map((milestone, index) => `${index + 1}. ${milestone}`).join('\n'),
  };
  const body = PRD_SECTIONS.map((section) => `## ${section}\n\n${sections[section]}`).join('\n\n');
  return `# PRD: ${prd.title}\n\n${body}\n`;
}

export function prdOutput(result: PrdWriterResult, sessionId: string): PrdTurnOutput {
  return { action: 'written', sessionId, title: result.title, markdown: renderPrdMarkdown(result) };
}

export const prdWriter: AgentProfile<PrdWriterResult, PrdTurnOutput> = {
  name: 'prd_writer',
  system: PRD_WRITER_SYSTEM_PROMPT,
  tools: [],
  result: {
    schema: PrdWriterResult,
    description: 'Submit the PRD, one field per section. Call it last, exactly once.',
  },
  prompt: buildPrdPrompt,
  output: prdOutput,
  unfinished: unfinishedRequirementsTurn,
  outputSchema: OutputSchema,
};
