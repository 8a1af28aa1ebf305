import { randomUUID } from 'node:crypto';
import { keptOn } from '../../lambdas/shared/kept.ts';
import { type FakeSlack, SlackApiError } from './fake-slack.ts';
import { type SlackArgs, stringArg } from './method-args.ts';
import type { SlackMethod } from './methods.ts';

/**
 * The fake's app surfaces: views (the App Home a bot publishes per user, the modals it opens
 * with a trigger id) and assistant threads' suggested prompts, refused as Slack refuses them:
 * a trigger id is good once, for three seconds; a view holds at most 100 blocks; a modal's
 * title at most 24 characters; a thread takes one to four prompts.
 */

/** Slack's trigger ids expire after three seconds. */
export const TRIGGER_LIFETIME_MS = 3_000;
const MAX_VIEW_BLOCKS = 100;
const MAX_MODAL_TITLE = 24;
const MAX_PROMPTS = 4;

export interface StoredView {
  id: string;
  /** `home` (published for `user`) or `modal` (opened for `user`). */
  type: 'home' | 'modal';
  user: string;
  view: Record<string, unknown>;
  hash: string;
  /** A modal: whether it was submitted or closed. */
  state: 'open' | 'submitted' | 'closed';
}

export interface SuggestedPrompts {
  channel: string;
  threadTs: string;
  title?: string;
  prompts: { title: string; message: string }[];
}

export class SlackViews {
  private readonly triggers = new Map<string, { user: string; issuedAt: number; used: boolean }>();
  private readonly views = new Map<string, StoredView>();
  private readonly homes = new Map<string, string>();
  private readonly promptLog: SuggestedPrompts[] = [];
  private count = 0;

  constructor(private readonly clock: () => number) {}

  /** A trigger id for an interaction of `user` (what Slack puts in an interaction's payload). */
  issueTrigger(user: string): string {
    const id = `${this.clock()}.${randomUUID()}`;
    this.triggers.set(id, { user, issuedAt: this.clock(), used: false });
    return id;
  }

  /**
   * `views.open`: takes the trigger once, within its lifetime. A trigger id this class did not
   * issue (the sandbox's other buttons make theirs as `<epoch ms>.<uuid>`) is timed from its
   * own first part, for a user the fake cannot know.
   */
  open(triggerId: string, view: Record<string, unknown>): StoredView {
    const minted = /^(\d{13})\.[0-9a-f-]{36}$/.exec(triggerId);
    if (!this.triggers.has(triggerId) && minted?.[1] !== undefined)
      this.triggers.set(triggerId, { user: '', issuedAt: Number(minted[1]), used: false });
    const trigger = this.triggers.get(triggerId);
    if (trigger === undefined) throw new SlackApiError('invalid_trigger_id');
    if (trigger.used) throw new SlackApiError('exchanged_trigger_id');
    if (this.clock() - trigger.issuedAt > TRIGGER_LIFETIME_MS) throw new SlackApiError('expired_trigger_id');
    checkView(view, 'modal');
    trigger.used = true;
    return this.store({ type: 'modal', user: trigger.user, view });
  }

  /** `views.publish`: the Home tab of `user`, replacing the one before. */
  publish(user: string, view: Record<string, unknown>): StoredView {
    checkView(view, 'home');
    const stored = this.store({ type: 'home', user, view });
    this.homes.set(user, stored.id);
    return stored;
  }

  home(user: string): StoredView | undefined {
    const id = this.homes.get(user);
    return id === undefined ? undefined : this.views.get(id);
  }

  /** The modals opened for `user` (all users without one), oldest first. */
  modals(user?: string): StoredView[] {
    return [...this.views.values()].filter(
      (v) => v.type === 'modal' && (user === undefined || v.user === user),
    );
  }

  view(id: string): StoredView | undefined {
    return this.views.get(id);
  }

  /** A modal submitted or closed by its user; refused when it is not open. */
  settle(id: string, state: 'submitted' | 'closed'): StoredView {
    const view = this.views.get(id);
    if (view === undefined || view.type !== 'modal') throw new SlackApiError('not_found', `no modal ${id}`);
    if (view.state !== 'open') throw new SlackApiError('view_not_open', `modal ${id} is ${view.state}`);
    view.state = state;
    return view;
  }

  suggest(prompts: SuggestedPrompts): void {
    if (prompts.prompts.length < 1 || prompts.prompts.length > MAX_PROMPTS)
      throw new SlackApiError('invalid_arguments', `prompts must have 1 to ${MAX_PROMPTS} items`);
    for (const p of prompts.prompts) {
      if (typeof p.title !== 'string' || typeof p.message !== 'string' || !p.title || !p.message)
        throw new SlackApiError('invalid_arguments', 'each prompt needs a title and a message');
    }
    this.promptLog.push(prompts);
  }

  suggestedPrompts(): SuggestedPrompts[] {
    return [...this.promptLog];
  }

  private store(input: Pick<StoredView, 'type' | 'user' | 'view'>): StoredView {
    this.count += 1;
    const stored: StoredView = {
      ...input,
      id: `V${String(this.count).padStart(8, '0')}`,
      hash: `${this.clock()}.${this.count}`,
      state: 'open',
    };
    this.views.set(stored.id, stored);
    return stored;
  }
}

function checkView(view: Record<string, unknown>, type: 'home' | 'modal'): void {
  if (view.type !== type) throw new SlackApiError('invalid_arguments', `view.type must be ${type}`);
  const blocks = view.blocks;
  if (!Array.isArray(blocks)) throw new SlackApiError('invalid_arguments', 'view.blocks must be an array');
  if (blocks.length > MAX_VIEW_BLOCKS)
    throw new SlackApiError('invalid_arguments', `no more than ${MAX_VIEW_BLOCKS} blocks allowed`);
  if (
    blocks.some(
      (b) => typeof b !== 'object' || b === null || typeof (b as { type?: unknown }).type !== 'string',
    )
  )
    throw new SlackApiError('invalid_blocks', 'every block needs a type');
  if (type === 'modal') {
    const title = (view.title as { text?: unknown } | undefined)?.text;
    if (typeof title !== 'string' || title.length === 0 || title.length > MAX_MODAL_TITLE)
      throw new SlackApiError(
        'invalid_arguments',
        `a modal's title must be 1 to ${MAX_MODAL_TITLE} characters`,
      );
  }
}

function objectArg(args: SlackArgs, name: string): Record<string, unknown> {
  let value = args[name];
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new SlackApiError('invalid_arguments', `${name} is not valid JSON`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SlackApiError('invalid_arguments', `missing required field: ${name}`);
  return value as Record<string, unknown>;
}

/** The surfaces of one fake workspace, made on first use. */
export function viewsOf(slack: FakeSlack): SlackViews {
  return keptOn(slack, 'fake-slack.views', () => new SlackViews(Date.now));
}

const asApiView = (stored: StoredView) => ({
  ...stored.view,
  id: stored.id,
  hash: stored.hash,
  state: { values: {} },
});

/**
 * The Web API methods of the app surfaces (registered with the fake's other methods);
 * `assistant.threads.setSuggestedPrompts` is served with the assistant thread's other methods
 * (streams.ts), which records the prompts here too.
 */
export const VIEW_METHODS: Record<string, SlackMethod> = {
  'views.open': (slack: FakeSlack, args) => ({
    view: asApiView(viewsOf(slack).open(stringArg(args, 'trigger_id'), objectArg(args, 'view'))),
  }),
  'views.publish': (slack: FakeSlack, args) => {
    const user = stringArg(args, 'user_id');
    if (!slack.users().some((u) => u.id === user)) throw new SlackApiError('user_not_found');
    return { view: asApiView(viewsOf(slack).publish(user, objectArg(args, 'view'))) };
  },
};
