import { processStorage } from '../shared/kept.ts';
import type { RedactionSettings } from './config.ts';
import { Redactor } from './redactor.ts';

/**
 * The conversation the running code works for, carried along its asynchronous calls, so every
 * door of the redaction layer keys its placeholders by it: the same value gets the same
 * placeholder in a prompt, a Slack post, a pull request and a stored item of one conversation,
 * whichever door it passed and whatever that door knows (a Slack client knows a thread, an
 * Octokit hook an issue, a model client nothing). A task handler, the channel responder and the
 * Router (once it knows the conversation of what it handles) set it; a door with no conversation
 * around it keys by what it knows.
 */
const current = processStorage<string>('conversation');

/** Runs `work` as part of `conversationId`. */
export function inConversation<T>(conversationId: string, work: () => T): T {
  return current.run(conversationId, work);
}

/** The conversation the running code works for, if one was set (its ledger is where its work is counted). */
export function conversationInScope(): string | undefined {
  return current.getStore();
}

/** The key of a door's placeholders: the conversation's id when known, else the door's own `fallback`. */
export function tagScope(fallback: string): string {
  return current.getStore() ?? fallback;
}

/**
 * A door's redactor: keyed by the conversation the call is made for, whose ledger counts what it
 * replaces (lambdas/redaction/tally.ts), or by the door's own `fallback` and counted nowhere.
 */
export function doorRedactor(fallback: string, settings: RedactionSettings): Redactor {
  const conversationId = current.getStore();
  return new Redactor(conversationId ?? fallback, settings, conversationId);
}
