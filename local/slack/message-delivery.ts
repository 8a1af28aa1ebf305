import type { SlackMessageEvent } from './types.ts';

/** Hands each new message event to the workspace's subscribers, one at a time in the order posted. */

export type MessageListener = (event: SlackMessageEvent) => void | Promise<void>;

export class MessageDelivery {
  private readonly listeners = new Set<MessageListener>();
  private delivery: Promise<void> = Promise.resolve();

  constructor(private readonly onListenerError: (error: unknown, event: SlackMessageEvent) => void) {}

  /** Adds a subscriber; returns the unsubscribe function. */
  subscribe(listener: MessageListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every event so far has been delivered to the subscribers. */
  async settled(): Promise<void> {
    let tail: Promise<void>;
    do {
      tail = this.delivery;
      await tail;
    } while (tail !== this.delivery);
  }

  /** Queues the event for the current subscribers, after every event before it. */
  announce(event: SlackMessageEvent): void {
    const listeners = [...this.listeners];
    this.delivery = this.delivery.then(async () => {
      for (const listener of listeners) {
        try {
          await listener(event);
        } catch (error) {
          this.onListenerError(error, event);
        }
      }
    });
  }
}
