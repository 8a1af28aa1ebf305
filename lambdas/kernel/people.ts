import * as z from 'zod';
import type { Clock } from './clock.ts';

/**
 * Who is who, from configuration (stack config `people`, the PEOPLE variable): each role a
 * person can hold (`developer`, `on_call`...) is a set of Slack user groups and user ids.
 * Group membership is read from Slack (`usergroups.users.list`) and cached briefly, so a
 * change in Slack applies within a minute without a call per message.
 */

const SlackUserId = z.string().regex(/^[UW][A-Z0-9_]+$/, 'expected a Slack user id such as U0123456789');
const SlackGroupId = z.string().regex(/^S[A-Z0-9_]+$/, 'expected a Slack user group id such as S0123456789');

/** One role's members: user groups and single users. */
export const RoleMembers = z.strictObject({
  /** Slack user groups whose members hold the role. @default [] */
  groups: z.array(SlackGroupId).default([]),
  /** Slack users who hold the role. @default [] */
  users: z.array(SlackUserId).default([]),
});
export type RoleMembers = z.infer<typeof RoleMembers>;

/** Every configured role, by name (lower snake case). */
export const People = z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), RoleMembers);
export type People = z.infer<typeof People>;

/**
 * Who may decide what: decision kind (e.g. `acknowledge_escalation`) -> the roles whose
 * holders may press its buttons.
 */
export const Approvals = z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.array(z.string()).min(1));
export type Approvals = z.infer<typeof Approvals>;

/** Reads a user group's members (Slack's `usergroups.users.list`). */
export interface UserGroups {
  members(groupId: string): Promise<readonly string[]>;
}

/** How long a group's members are trusted before Slack is asked again. */
export const GROUP_CACHE_MS = 60_000;

/**
 * The roles of Slack users under a `People` configuration. One instance per Lambda
 * instance: the group cache lives as long as it.
 */
export class PeopleDirectory {
  private readonly cache = new Map<string, { members: Promise<ReadonlySet<string>>; at: number }>();

  constructor(
    private readonly people: People,
    private readonly groups: UserGroups,
    private readonly clock: Clock,
    private readonly cacheMs = GROUP_CACHE_MS,
  ) {}

  /** Whether `role` is a configured role (a person must be a member to hold it). */
  configures(role: string): boolean {
    return role in this.people;
  }

  /** Whether `userId` holds `role`: listed as a user, or a member of one of its groups. */
  async holds(userId: string, role: string): Promise<boolean> {
    const members = this.people[role];
    if (members === undefined) return false;
    if (members.users.includes(userId)) return true;
    for (const group of members.groups) {
      if ((await this.groupMembers(group)).has(userId)) return true;
    }
    return false;
  }

  /** Every configured role `userId` holds, in configuration order. */
  async rolesOf(userId: string): Promise<string[]> {
    const roles: string[] = [];
    for (const role of Object.keys(this.people)) if (await this.holds(userId, role)) roles.push(role);
    return roles;
  }

  private groupMembers(groupId: string): Promise<ReadonlySet<string>> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(groupId);
    if (cached !== undefined && now - cached.at < this.cacheMs) return cached.members;
    const members = this.groups.members(groupId).then((ids) => new Set(ids));
    this.cache.set(groupId, { members, at: now });
    // A failed read is not cached: the next message asks Slack again.
    members.catch(() => {
      if (this.cache.get(groupId)?.members === members) this.cache.delete(groupId);
    });
    return members;
  }
}

/**
 * The role a sender gets in a thread whose anchor gives others `anchorRole`, when roles are
 * checked against configuration: a configured role only if the sender holds it (or, if not,
 * another configured role they hold), otherwise `participant`: heard, but as nobody in
 * particular. A role the configuration does not know (`participant`, `requester`) is given
 * as the anchor says.
 */
export async function verifiedRole(
  directory: PeopleDirectory,
  userId: string,
  anchorRole: string,
): Promise<string> {
  if (!directory.configures(anchorRole)) return anchorRole;
  if (await directory.holds(userId, anchorRole)) return anchorRole;
  return (await directory.rolesOf(userId))[0] ?? UNVERIFIED_ROLE;
}

/** The role of someone who writes where a configured role is expected but holds none. */
export const UNVERIFIED_ROLE = 'participant';
