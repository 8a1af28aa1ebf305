import { describe, expect, it } from 'vitest';
import { startRefusal } from '../../lambdas/workflows/issue-pipeline/start-authority.ts';

/** What the start check reads through. */
type StartAuthorityDeps = Parameters<typeof startRefusal>[1];

const deps = (permissions: Record<string, string>, developers?: string[]): StartAuthorityDeps => ({
  repository: 'acme/shop',
  permissionOf: async (login) => {
    const permission = permissions[login];
    if (permission === undefined) throw new Error('404: not a collaborator');
    return permission;
  },
  holdsDeveloperRole: async (user) => (developers === undefined ? undefined : developers.includes(user)),
});

describe('who may start the issue pipeline', () => {
  it.each(['admin', 'maintain', 'write'])('starts for a labeller with %s access', async (permission) => {
    expect(await startRefusal('github:dev', deps({ dev: permission }))).toBeUndefined();
  });

  it.each(['triage', 'read'])(
    'refuses a labeller with %s access, naming them and their access',
    async (permission) => {
      expect(await startRefusal('github:someone', deps({ someone: permission }))).toBe(
        `Only people with write access to acme/shop can start the issue pipeline; @someone has "${permission}" access, so nothing was changed.`,
      );
    },
  );

  it('refuses a labeller GitHub does not know as a collaborator (the permission check failing counts as none)', async () => {
    expect(await startRefusal('github:drive-by', deps({}))).toContain('@drive-by has "none" access');
  });

  it('starts /fix for a developer and refuses it for anyone else', async () => {
    expect(await startRefusal('U_DEV', deps({}, ['U_DEV']))).toBeUndefined();
    expect(await startRefusal('U_THIRD', deps({}, ['U_DEV']))).toBe(
      'Only developers can start the issue pipeline with /fix; <@U_THIRD> is not one, so nothing was changed.',
    );
  });

  it('starts /fix when no developer role is configured at all (nobody to check against)', async () => {
    expect(await startRefusal('U_ANYONE', deps({}))).toBeUndefined();
  });
});
