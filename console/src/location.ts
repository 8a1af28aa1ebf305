import type { State } from './state.ts';

/**
 * What the address keeps (`#channel=...&thread=...&conversation=...&as=...`), so a reload or a
 * shared link opens the same view. `#execution=<name>` (the links in Slack messages) opens the
 * conversation that runs that execution.
 */

/** Who the composer posts as unless the address says otherwise. */
export const DEFAULT_USER = 'U_REPORTER';

/** The part of the state the address holds. */
export function stateFromHash(hash: string = location.hash): Partial<State> {
  const params = new URLSearchParams(hash.slice(1));
  const get = (name: string) => params.get(name) ?? undefined;
  const partial: Partial<State> = {};
  const channelId = get('channel');
  const threadTs = get('thread');
  const threadChannel = get('threadChannel') ?? channelId;
  const conversationId = get('conversation');
  // An execution link (a Slack message's "in the console"): its conversation is found once loaded.
  const execution = get('execution');
  const postAs = get('as');
  if (channelId) partial.channelId = channelId;
  if (threadTs && threadChannel) Object.assign(partial, { threadTs, threadChannel });
  if (conversationId)
    Object.assign(partial, { conversationId, center: 'conversation', view: 'conversation' });
  else if (execution)
    Object.assign(partial, { linkedExecution: execution, center: 'conversation', view: 'conversation' });
  else if (threadTs) partial.view = 'thread';
  if (postAs) partial.postAs = postAs;
  return partial;
}

/** The address of the state's view. */
export function hashOf(state: State): string {
  const params = new URLSearchParams();
  if (state.channelId) params.set('channel', state.channelId);
  if (state.threadTs && state.threadChannel) {
    params.set('thread', state.threadTs);
    if (state.threadChannel !== state.channelId) params.set('threadChannel', state.threadChannel);
  }
  if (state.conversationId && state.center === 'conversation')
    params.set('conversation', state.conversationId);
  if (state.postAs !== DEFAULT_USER) params.set('as', state.postAs);
  return `#${params.toString()}`;
}
