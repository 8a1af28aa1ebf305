import { afterEach, describe, expect, it, vi } from 'vitest';
import { startReusableSandbox } from '../../local/sandbox.ts';
import { until } from '../support/eventually.ts';
import { PROBE_CHANNEL, PROBE_SANDBOX } from '../support/probe-sandbox.ts';

/**
 * A stopped sandbox sends the fake Slack's events nowhere: a message posted once the sandbox
 * is stopping (the bot's answer to a turn the stop cut short, say) is not sent to an ingress
 * that is closed or closing, so nothing prints a failed delivery.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

const deliveryFailures = (errors: unknown[][]) =>
  errors.filter((args) => /\[fake slack\]|\[sandbox\] ingress answered/.test(String(args[0])));

/**
 * The requests made to a sandbox's Slack events endpoint from now on (the fake Slack's
 * deliveries); with `held`, each waits for it before it goes out.
 */
function eventRequests(held?: Promise<void>): string[] {
  const send = globalThis.fetch;
  const sent: string[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/slack/events')) {
      sent.push(url);
      await held;
    }
    return send(input, init);
  });
  return sent;
}

describe('a stopped sandbox', () => {
  it('sends no event of a message posted after it closed', async () => {
    const { sandbox } = await startReusableSandbox(PROBE_SANDBOX);
    const workspace = sandbox.slack.workspace;
    await sandbox.stop();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const sent = eventRequests();

    workspace.postAsUser({ channel: PROBE_CHANNEL, user: 'U_REPORTER', text: 'posted after the stop' });
    await workspace.settled();

    expect(sent).toEqual([]);
    expect(deliveryFailures(errors.mock.calls)).toEqual([]);
  });

  it('drops, without a word, an event whose delivery the stop cut off', async () => {
    const { sandbox } = await startReusableSandbox(PROBE_SANDBOX);
    const workspace = sandbox.slack.workspace;
    // The event's request waits until the sandbox has closed, then goes to its closed port.
    let open!: () => void;
    const stopped = new Promise<void>((resolve) => {
      open = resolve;
    });
    const sent = eventRequests(stopped);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);

    workspace.postAsUser({ channel: PROBE_CHANNEL, user: 'U_REPORTER', text: 'in flight at the stop' });
    await until(() => sent.length > 0, "the event's delivery to start");
    await sandbox.stop();
    open();
    await workspace.settled();

    expect(sent).toHaveLength(1);
    expect(deliveryFailures(errors.mock.calls)).toEqual([]);
  });

  it('sends no event of a message posted after it was released for the next file', async () => {
    const reusable = await startReusableSandbox(PROBE_SANDBOX);
    const workspace = reusable.sandbox.slack.workspace;
    try {
      expect(await reusable.release()).toBe(true);
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const sent = eventRequests();

      workspace.postAsUser({ channel: PROBE_CHANNEL, user: 'U_REPORTER', text: 'posted after the release' });
      await workspace.settled();

      expect(sent).toEqual([]);
      expect(deliveryFailures(errors.mock.calls)).toEqual([]);
    } finally {
      await reusable.close();
    }
  });
});
