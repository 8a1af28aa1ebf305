import { defineProfiles } from '../../../agents/profile.ts';
import { bugFixer } from './bug-fixer.ts';
import { bugInvestigator } from './bug-investigator.ts';

/** The bug investigation's agent roles, served by its AgentTurn function. */
export const BUG_INVESTIGATION_PROFILES = defineProfiles({
  bug_investigator: bugInvestigator,
  bug_fixer: bugFixer,
});
