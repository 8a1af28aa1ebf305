import type { OpenApproval } from '../kernel/approvals.ts';
import type { HomeOpened, SurfaceOutcome } from '../kernel/inbox-surface.ts';
import type { Conversation } from '../kernel/model.ts';
import type { Approvals, PeopleDirectory } from '../kernel/people.ts';
import type { Clock } from '../kernel/ports.ts';
import {
  buildHomeView,
  type HomeApproval,
  type HomeCommand,
  type HomeConversation,
  MAX_HOME_APPROVALS,
  MAX_HOME_CONVERSATIONS,
} from './home-view.ts';
import type { HomeSlack, HomeSource } from './ports.ts';

/**
 * The roles whose holders see today's model cost in their Home tab: `admin` where the
 * people configuration defines it, and on call, who are paged when the ceiling stops work.
 */
export const HOME_ADMIN_ROLES: readonly string[] = ['admin', 'on_call'];

/** How many unfinished conversations one Home publication reads at most. */
export const HOME_SCAN_LIMIT = 500;

export interface HomeDeps {
  source: HomeSource;
  slack: HomeSlack;
  /** Who may decide what (`slackAgents.approvals`). */
  approvals: Approvals;
  /** The configured roles; absent: nobody holds a role (no approvals, no cost shown). */
  people: PeopleDirectory | undefined;
  /** The daily model cost ceiling in USD (`agentLimits.maxDailyCostUsd`), if any. */
  ceilingUsd: number | undefined;
  commands: readonly HomeCommand[];
  clock: Clock;
  /** @default HOME_ADMIN_ROLES */
  adminRoles?: readonly string[];
}

/** `app_home_opened`: gathers what is the person's and publishes their Home tab. */
export async function publishHome(opened: HomeOpened, deps: HomeDeps): Promise<SurfaceOutcome> {
  const { user } = opened;
  const { conversations, truncated } = await deps.source.unfinished(HOME_SCAN_LIMIT);
  const mine = conversations
    .filter((c) => c.ownerId === user || c.participants[user] !== undefined)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const waiting = await approvalsFor(user, conversations, deps);
  const admin = await holdsAny(deps.people, user, deps.adminRoles ?? HOME_ADMIN_ROLES);
  const day = deps.clock.now().toISOString().slice(0, 10);
  const cost = admin
    ? {
        spentUsd: (await deps.source.spentOn(day)) / 1_000_000,
        ...(deps.ceilingUsd === undefined ? {} : { ceilingUsd: deps.ceilingUsd }),
      }
    : undefined;
  const shown: HomeConversation[] = [];
  for (const c of mine.slice(0, MAX_HOME_CONVERSATIONS)) shown.push(await homeConversation(c, deps));
  const approvals: HomeApproval[] = [];
  for (const a of waiting.slice(0, MAX_HOME_APPROVALS)) {
    const link = await deps.slack.permalink(a.channel, a.messageTs);
    approvals.push(link === undefined ? a : { ...a, link });
  }
  const view = buildHomeView({
    user,
    conversations: [...shown, ...mine.slice(MAX_HOME_CONVERSATIONS).map(brief)],
    approvals: [...approvals, ...waiting.slice(MAX_HOME_APPROVALS)],
    ...(cost === undefined ? {} : { cost }),
    commands: deps.commands,
    truncated,
  });
  await deps.slack.publish(user, view);
  return {
    type: 'surface',
    surface: 'home_opened',
    outcome: 'published',
    detail: `${mine.length} conversation(s), ${waiting.length} approval(s)${admin ? ', cost' : ''}`,
  };
}

function brief(c: Conversation): HomeConversation {
  return { id: c.id, workflow: c.workflow, status: c.status, phase: c.phase, updatedAt: c.updatedAt };
}

async function homeConversation(c: Conversation, deps: HomeDeps): Promise<HomeConversation> {
  const anchor = Object.values(c.anchors)[0];
  const link = anchor === undefined ? undefined : await deps.slack.permalink(anchor.channel, anchor.threadTs);
  const subject = await deps.source.subject(c.id);
  return {
    ...brief(c),
    ...(subject === undefined ? {} : { subject }),
    ...(link === undefined ? {} : { link }),
  };
}

/** The approvals open now, placed in a message, undecided and unexpired, that `user` may decide. */
async function approvalsFor(
  user: string,
  conversations: readonly Conversation[],
  deps: HomeDeps,
): Promise<HomeApproval[]> {
  const found: HomeApproval[] = [];
  for (const c of conversations) {
    for (const approval of Object.values(c.approvals ?? {})) {
      if (!isOpen(approval) || approval.channel === undefined || approval.messageTs === undefined) continue;
      if (!(await holdsAny(deps.people, user, deps.approvals[approval.kind] ?? []))) continue;
      found.push({
        conversationId: c.id,
        workflow: c.workflow,
        kind: approval.kind,
        text: approval.text,
        choices: approval.choices,
        nonce: approval.nonce,
        channel: approval.channel,
        messageTs: approval.messageTs,
        ...(approval.threadTs === undefined ? {} : { threadTs: approval.threadTs }),
        openedAt: approval.openedAt,
      });
    }
  }
  return found.sort((a, b) => a.openedAt.localeCompare(b.openedAt));
}

function isOpen(approval: OpenApproval): boolean {
  return approval.decided === undefined && approval.expiredAt === undefined;
}

async function holdsAny(
  people: PeopleDirectory | undefined,
  user: string,
  roles: readonly string[],
): Promise<boolean> {
  if (people === undefined) return false;
  for (const role of roles) if (await people.holds(user, role)) return true;
  return false;
}
