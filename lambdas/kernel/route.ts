import { answerEnded } from './ended-answer.ts';
import type { InboxEnvelope } from './inbox.ts';
import type { UnownedMessageHandler } from './ports.ts';
import { routeAction } from './route-action.ts';
import { routeCommand } from './route-command.ts';
import { routeAlert, routeGithubEvent } from './route-external.ts';
import { routeMessage } from './route-message.ts';
import {
  partOf,
  type Routed,
  type RouteOutcome,
  type RouterAddition,
  type RouterDeps,
} from './route-types.ts';

export type { EndedNotice, RouterAddition, RouterPorts, Told } from './route-types.ts';

/**
 * The Router: every envelope that reaches a conversation goes to the route of its kind, in the
 * table below. Each route reads what it needs (the thread it names, the conversation), decides,
 * and writes once: a start (route-start.ts), a message stored (route-store.ts), a stop
 * (stop.ts), an approval's decision (route-approval.ts), or an answer. A route that finds the
 * conversation ended returns it, and the ended route (ended-answer.ts) answers the sender.
 * What a route leaves unrouted goes to the additions of its kind, which workflows give
 * (channel conversations take the messages no workflow owns; the app's surfaces are the
 * kernel handler's own addition).
 */

type Route<E extends InboxEnvelope> = (envelope: E, deps: RouterDeps) => Promise<Routed>;
type Routes = { readonly [K in InboxEnvelope['kind']]: Route<Extract<InboxEnvelope, { kind: K }>> };

const ROUTES: Routes = {
  message: routeMessage,
  slash_command: routeCommand,
  action: routeAction,
  github: routeGithubEvent,
  alert: routeAlert,
  // The app's surfaces (feedback, the App Home, assistant threads) are the additions' alone.
  surface: async (envelope) => ({
    type: 'unrouted',
    reason: `${envelope.surface}, but no surfaces entry is wired here`,
  }),
};

export async function routeEnvelope(
  envelope: InboxEnvelope,
  deps: RouterDeps,
  additions: readonly RouterAddition[] = [],
): Promise<RouteOutcome> {
  if (deps.botUserId !== undefined && envelope.user === deps.botUserId) {
    return { type: 'ignored', reason: "the bot's own message" };
  }
  // The table pairs each kind with its route; TypeScript cannot see that the pair read here agrees.
  const route = ROUTES[envelope.kind] as Route<InboxEnvelope>;
  const routed = await route(envelope, deps);
  // A message for an ended conversation is answered by the ended route, as part of that conversation.
  if (routed.type === 'ended') return partOf(routed.conversation.id, deps, () => answerEnded(routed, deps));
  if (routed.type !== 'unrouted') return routed;
  for (const addition of additions) {
    if (addition.takes !== envelope.kind) continue;
    const take = addition.route as (envelope: InboxEnvelope) => Promise<RouteOutcome | undefined>;
    const outcome = await take(envelope);
    if (outcome !== undefined) return outcome;
  }
  return { type: 'ignored', reason: routed.reason };
}

/** The addition that hands `take` the messages no workflow and no thread owns (channel conversations). */
export function unownedMessages(take: UnownedMessageHandler): RouterAddition {
  return { takes: 'message', route: async (message) => ({ type: 'channel', outcome: await take(message) }) };
}
