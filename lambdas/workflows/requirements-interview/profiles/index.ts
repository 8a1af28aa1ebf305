import { defineProfiles } from '../../../agents/profile.ts';
import { prdWriter } from './prd-writer.ts';
import { requirementsAnalyst } from './requirements-analyst.ts';
import { requirementsClarifier } from './requirements-clarifier.ts';

/** The requirements interview's agent roles, served by its AgentTurn function. */
export const REQUIREMENTS_INTERVIEW_PROFILES = defineProfiles({
  requirements_clarifier: requirementsClarifier,
  prd_writer: prdWriter,
  requirements_analyst: requirementsAnalyst,
});
