import type { BugTurnOutput } from '../contract.ts';
import type { AgentProfile } from '../profile.ts';
import { type BugInvestigationResult, bugInvestigator } from './bug-investigator.ts';

/**
 * Every agent role, by the name AgentTurn's input gives (`AgentProfileName`). A new role is a
 * module under `profiles/`, an entry here and a case in `runAgentTurn`.
 */
export interface ProfileRegistry {
  bug_investigator: AgentProfile<BugInvestigationResult, BugTurnOutput>;
}

export const PROFILES: ProfileRegistry = {
  bug_investigator: bugInvestigator,
};
