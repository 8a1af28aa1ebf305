import type { ProfileLoaders } from '../../../agents/profile.ts';

/**
 * The bug investigation's roles as its AgentTurn function loads them: each on the first turn
 * that runs it, so an investigator's cold start leaves the fixer's build contracts unread. The
 * same roles as `BUG_INVESTIGATION_PROFILES` (index.ts); a test checks they stay so.
 */
export const BUG_INVESTIGATION_ROLES: ProfileLoaders = {
  bug_investigator: async () => (await import('./bug-investigator.ts')).bugInvestigator,
  bug_fixer: async () => (await import('./bug-fixer.ts')).bugFixer,
};
