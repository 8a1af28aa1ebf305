import { githubLogin, WRITERS } from './answers.ts';

/**
 * Who may start the pipeline, in code: whoever did the starting act, never anyone else in the
 * conversation. An issue labelled on GitHub starts only for a labeller with write access to the
 * repository (GitHub's own permission, asked of the collaborator permission API), and `/fix`
 * from Slack only for a holder of the developer role (`slackAgents.people.developer`). The
 * refusal says who and why; the pipeline shows it on the issue and in Slack, and stops.
 */

/** The role a Slack user needs to run `/fix`. */
export const START_ROLE = 'developer';

export interface StartAuthorityDeps {
  repository: string;
  /** The labeller's permission on the repository (`admin`, `maintain`, `write`, `triage`, `read`, `none`). */
  permissionOf: (login: string) => Promise<string>;
  /** Whether a Slack user holds the developer role; undefined when no roles are configured. */
  holdsDeveloperRole: (userId: string) => Promise<boolean | undefined>;
}

/** Undefined when `ownerId` (who started it) may; otherwise the reason, for people to read. */
export async function startRefusal(ownerId: string, deps: StartAuthorityDeps): Promise<string | undefined> {
  if (ownerId.startsWith('github:')) {
    const login = githubLogin(ownerId);
    const permission = await deps.permissionOf(login).catch(() => 'none');
    if (WRITERS.has(permission)) return undefined;
    return `Only people with write access to ${deps.repository} can start the issue pipeline; @${login} has "${permission}" access, so nothing was changed.`;
  }
  const developer = await deps.holdsDeveloperRole(ownerId);
  // Without a roles configuration there is nobody to check against: as before roles, anyone may.
  if (developer === undefined || developer) return undefined;
  return `Only developers can start the issue pipeline with /fix; <@${ownerId}> is not one, so nothing was changed.`;
}
