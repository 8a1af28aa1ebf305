import { describe, expect, it } from 'vitest';
import { loadProfile, type ProfileLoaders, type ProfileRegistry } from '../../lambdas/agents/profile.ts';
import { BUG_INVESTIGATION_PROFILES } from '../../lambdas/workflows/bug-investigation/profiles/index.ts';
import { BUG_INVESTIGATION_ROLES } from '../../lambdas/workflows/bug-investigation/profiles/roles.ts';
import { INCIDENT_PROFILES } from '../../lambdas/workflows/incident-investigation/profiles/index.ts';
import { INCIDENT_ROLES } from '../../lambdas/workflows/incident-investigation/profiles/roles.ts';
import { ISSUE_PIPELINE_PROFILES } from '../../lambdas/workflows/issue-pipeline/profiles/index.ts';
import { ISSUE_PIPELINE_ROLES } from '../../lambdas/workflows/issue-pipeline/profiles/roles.ts';
import { REQUIREMENTS_INTERVIEW_PROFILES } from '../../lambdas/workflows/requirements-interview/profiles/index.ts';
import { REQUIREMENTS_INTERVIEW_ROLES } from '../../lambdas/workflows/requirements-interview/profiles/roles.ts';

// A workflow's AgentTurn loads each role on the first turn that runs it; the registry is what
// the state machines, the demo model and the tests read. The two must name the same roles.
const WORKFLOWS: [string, ProfileLoaders, ProfileRegistry][] = [
  ['bug investigation', BUG_INVESTIGATION_ROLES, BUG_INVESTIGATION_PROFILES],
  ['requirements interview', REQUIREMENTS_INTERVIEW_ROLES, REQUIREMENTS_INTERVIEW_PROFILES],
  ['incident investigation', INCIDENT_ROLES, INCIDENT_PROFILES],
  ['issue pipeline', ISSUE_PIPELINE_ROLES, ISSUE_PIPELINE_PROFILES],
];

describe.each(WORKFLOWS)('the %s roles its AgentTurn loads', (_name, roles, registry) => {
  it('are the roles of its registry, each loading that very profile', async () => {
    expect(Object.keys(roles).sort()).toEqual(Object.keys(registry).sort());
    for (const name of Object.keys(registry)) {
      expect(await loadProfile(roles, name)).toEqual({ [name]: registry[name] });
      expect((await loadProfile(roles, name))?.[name]).toBe(registry[name]);
    }
  });
});

describe('loadProfile', () => {
  const registry = BUG_INVESTIGATION_PROFILES;

  it('loads only the role asked for', async () => {
    let loads = 0;
    const roles: ProfileLoaders = Object.fromEntries(
      Object.entries(registry).map(([name, profile]) => [
        name,
        async () => {
          loads++;
          return profile;
        },
      ]),
    );
    expect(Object.keys((await loadProfile(roles, 'bug_fixer')) ?? {})).toEqual(['bug_fixer']);
    expect(loads).toBe(1);
  });

  it('knows no role the loaders do not name, inherited names included', async () => {
    const roles = BUG_INVESTIGATION_ROLES;
    expect(await loadProfile(roles, 'issue_writer')).toBeUndefined();
    expect(await loadProfile(roles, 'toString')).toBeUndefined();
    expect(await loadProfile(roles, '__proto__')).toBeUndefined();
  });

  it('refuses a role filed under another name', async () => {
    const roles: ProfileLoaders = { bug_fixer: async () => registry.bug_investigator };
    await expect(loadProfile(roles, 'bug_fixer')).rejects.toThrow(
      'profile "bug_investigator" is registered as "bug_fixer"',
    );
  });
});
