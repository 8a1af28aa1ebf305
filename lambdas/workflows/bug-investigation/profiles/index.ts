import { defineProfiles } from '../../../agents/profile.ts';
import { bugInvestigator } from './bug-investigator.ts';

/** The bug investigation's agent roles, served by its AgentTurn function. */
export const BUG_INVESTIGATION_PROFILES = defineProfiles({ bug_investigator: bugInvestigator });
