import type { ProfileLoaders } from '../../../agents/profile.ts';

/**
 * The requirements interview's roles as its AgentTurn function loads them: each on the first
 * turn that runs it, so the clarifier's many turns leave the PRD's and the analysis's schemas
 * unread. The same roles as `REQUIREMENTS_INTERVIEW_PROFILES` (index.ts); a test checks they stay so.
 */
export const REQUIREMENTS_INTERVIEW_ROLES: ProfileLoaders = {
  requirements_clarifier: async () => (await import('./requirements-clarifier.ts')).requirementsClarifier,
  prd_writer: async () => (await import('./prd-writer.ts')).prdWriter,
  requirements_analyst: async () => (await import('./requirements-analyst.ts')).requirementsAnalyst,
};
