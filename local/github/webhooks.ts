import { createHmac, randomUUID } from 'node:crypto';

/** One delivery as the sandbox records it (`GET /sandbox/github/deliveries`). */
export interface Delivery {
  id: string;
  event: string;
  action: string | undefined;
  repository: string | undefined;
  url: string;
  deliveredAt: string;
  /** The receiver's HTTP status, or undefined when it could not be reached. */
  status: number | undefined;
  error?: string;
  durationMs: number;
  payload: Record<string, unknown>;
}

export interface WebhookOptions {
  /** Where deliveries go (the sandbox's own `/github/events`); none: recorded, not sent. */
  url: string | undefined;
  secret: string;
  /** Deliveries kept for `GET /sandbox/github/deliveries`. @default 500 */
  keep?: number;
  fetch?: typeof fetch;
}

/** GitHub's delivery timeout: a receiver slower than this is a failed delivery. */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Sends webhooks as GitHub does: a JSON POST with `X-GitHub-Event`, a UUID `X-GitHub-Delivery`
 * and `X-Hub-Signature-256` (HMAC-SHA256 of the body with the secret). Deliveries go out one at
 * a time, in the order things happened. A failed delivery is logged and recorded with its status,
 * and not retried (GitHub does not retry automatically either; one redelivers by hand).
 */
export class Webhooks {
  private readonly log: Delivery[] = [];
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(delivery: Delivery) => void>();

  constructor(private readonly options: WebhookOptions) {}

  get secret(): string {
    return this.options.secret;
  }

  /** Queues a delivery; resolves when it was attempted. */
  emit(event: string, payload: Record<string, unknown>): Promise<Delivery> {
    const result = this.queue.then(() => this.deliver(event, payload));
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves when every delivery queued so far was attempted. */
  settled(): Promise<void> {
    return this.queue;
  }

  deliveries(): readonly Delivery[] {
    return this.log;
  }

  onDelivery(listener: (delivery: Delivery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async deliver(event: string, payload: Record<string, unknown>): Promise<Delivery> {
    const id = randomUUID();
    const body = JSON.stringify(payload);
    const started = Date.now();
    const delivery: Delivery = {
      id,
      event,
      action: typeof payload.action === 'string' ? payload.action : undefined,
      repository: (payload.repository as { full_name?: string } | undefined)?.full_name,
      url: this.options.url ?? '',
      deliveredAt: new Date().toISOString(),
      status: undefined,
      durationMs: 0,
      payload,
    };
    if (this.options.url) {
      try {
        const response = await (this.options.fetch ?? fetch)(this.options.url, {
          method: 'POST',
          body,
          signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
          headers: {
            'content-type': 'application/json',
            'user-agent': 'GitHub-Hookshot/sandbox',
            'x-github-event': event,
            'x-github-delivery': id,
            'x-github-hook-id': '1',
            'x-github-hook-installation-target-type': 'integration',
            'x-hub-signature-256': `sha256=${createHmac('sha256', this.options.secret).update(body).digest('hex')}`,
          },
        });
        delivery.status = response.status;
        await response.arrayBuffer();
        if (response.status >= 300)
          console.error(`[github] webhook ${event} ${id}: ${this.options.url} answered ${response.status}`);
      } catch (error) {
        delivery.error = (error as Error).message;
        console.error(`[github] webhook ${event} ${id}: delivery to ${this.options.url} failed`, error);
      }
    } else {
      delivery.error = 'no webhook URL configured';
    }
    delivery.durationMs = Date.now() - started;
    this.log.push(delivery);
    if (this.log.length > (this.options.keep ?? 500)) this.log.shift();
    for (const listener of this.listeners) listener(delivery);
    return delivery;
  }
}
