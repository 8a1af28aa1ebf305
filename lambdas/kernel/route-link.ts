import { type Anchor, storedAnchor } from './anchors.ts';
import type { RouteOutcome, RouterDeps } from './route-steps.ts';
import type { WorkflowRegistration } from './workflows.ts';

/**
 * Links a conversation that has just started under a further anchor (the incident a command
 * named, the alarm an alert came from), so what later names that anchor reaches it.
 */
export async function linkStarted(
  outcome: RouteOutcome,
  anchor: Anchor,
  ownerId: string,
  registration: WorkflowRegistration,
  deps: RouterDeps,
): Promise<void> {
  if (outcome.type !== 'started') return;
  await deps.store.linkThread({
    conversationId: outcome.conversationId,
    ownerId,
    anchor: {
      name: 'incident-name',
      ...storedAnchor(anchor),
      ownerRole: registration.ownerRole,
      othersRole: registration.othersRole,
    },
  });
}
