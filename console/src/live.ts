/**
 * Live updates: the sandbox's server-sent `change` events, or, when the stream fails,
 * polling every 2 s (the stream is tried again every 10 s, and polling stops once it is back).
 */

export type LiveMode = 'connecting' | 'live' | 'polling';

export function watchChanges(onChange: (kind: string) => void, onMode: (mode: LiveMode) => void): void {
  let poll: ReturnType<typeof setInterval> | undefined;
  const startPolling = () => {
    if (poll !== undefined) return;
    poll = setInterval(() => onChange('poll'), 2_000);
    onMode('polling');
  };
  const stopPolling = () => {
    if (poll === undefined) return;
    clearInterval(poll);
    poll = undefined;
  };
  const connect = () => {
    if (typeof EventSource === 'undefined') return startPolling();
    const source = new EventSource('/sandbox/events');
    source.addEventListener('open', () => {
      stopPolling();
      onMode('live');
      // Whatever changed while the stream was down.
      onChange('reconnected');
    });
    source.addEventListener('change', (event) => {
      let kind = 'unknown';
      try {
        kind = String((JSON.parse((event as MessageEvent<string>).data) as { kind?: unknown }).kind ?? kind);
      } catch {
        // a change all the same
      }
      onChange(kind);
    });
    source.addEventListener('error', () => {
      source.close();
      startPolling();
      setTimeout(connect, 10_000);
    });
  };
  connect();
}
