import type { SlackMessageEvent } from './types.ts';

/**
 * Hands each new message event to the workspace's subscribers as Slack's Events API does: in
 * the order posted within a thread, and within a channel for its top-level posts, while other
 * threads' events go out beside them (Slack does not hold a workspace's events behind one
 * slow delivery). A thread's root is a top-level post: its replies wait for its delivery.
 */

export type MessageListener = (event: SlackMessageEvent) => void | Promise<void>;

/** Where a message sits: what its lanes are made of. */
interface Placed {
  channel: string;
  ts: string;
  thread_ts?: string | undefined;
  subtype?: string | undefined;
}

/**
 * The lanes an event is delivered in order on: its thread (a root's own ts for a top-level
 * post), and its channel when it shows there (a top-level post, a reply also sent to the channel).
 */
function lanesOf(event: Placed): string[] {
  const thread = `${event.channel}/${event.thread_ts ?? event.ts}`;
  const inChannel = event.thread_ts === undefined || event.subtype === 'thread_broadcast';
  return inChannel ? [event.channel, thread] : [thread];
}

export class MessageDelivery {
  private readonly listeners = new Set<MessageListener>();
  /** The last delivery queued on each lane, until it is done. */
  private readonly tails = new Map<string, Promise<void>>();
  /** Every delivery queued and not done yet. */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly onListenerError: (error: unknown, event: SlackMessageEvent) => void) {}

  /** Adds a subscriber; returns the unsubscribe function. */
  subscribe(listener: MessageListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves once every event so far has been delivered to the subscribers; given a message,
   * once every event so far of its lanes (its thread, and its channel if it shows there) has.
   */
  async settled(message?: Placed): Promise<void> {
    if (message !== undefined) {
      await Promise.all(lanesOf(message).flatMap((lane) => this.tails.get(lane) ?? []));
      return;
    }
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Queues the event for the current subscribers, after every event before it on its lanes. */
  announce(event: SlackMessageEvent): void {
    const listeners = [...this.listeners];
    const lanes = lanesOf(event);
    const before = lanes.flatMap((lane) => this.tails.get(lane) ?? []);
    const delivery = Promise.all(before).then(async () => {
      for (const listener of listeners) {
        try {
          await listener(event);
        } catch (error) {
          this.onListenerError(error, event);
        }
      }
    });
    for (const lane of lanes) this.tails.set(lane, delivery);
    this.pending.add(delivery);
    void delivery.finally(() => {
      this.pending.delete(delivery);
      for (const lane of lanes) if (this.tails.get(lane) === delivery) this.tails.delete(lane);
    });
  }
}
