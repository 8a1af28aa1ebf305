/**
 * The event history in groups, as a reader follows it: one group per visit of a state (the
 * StateEntered event and everything up to the state's exit: scheduling, retries, the result),
 * and the execution's own events (started, succeeded, failed) each in a group of their own. A
 * 179-event history reads as a few dozen groups, each opened on demand.
 */

export interface GroupedEvent {
  type: string;
  stateName?: string;
  timestamp: string;
}

export type GroupOutcome = 'running' | 'succeeded' | 'failed' | 'caught' | 'neutral';

export interface EventGroup {
  /** Index of the group's first event in the history (stable while the history grows). */
  start: number;
  /** The state's name, or the execution event's type for an execution's own event. */
  title: string;
  /** Whether this is a state's visit (else an execution-level event). */
  isState: boolean;
  /** Which visit of the state this is (1 for the first). */
  visit: number;
  /** Indices of the group's events in the history. */
  events: number[];
  outcome: GroupOutcome;
}

const FAILURE = /(Failed|TimedOut|Aborted)$/;

/** Groups `events` (a Step Functions history, in order) by state visit. */
export function groupEvents(events: readonly GroupedEvent[]): EventGroup[] {
  const groups: EventGroup[] = [];
  const visits = new Map<string, number>();
  let open: EventGroup | undefined;
  events.forEach((event, index) => {
    if (event.type.endsWith('StateEntered')) {
      const name = event.stateName ?? '?';
      const visit = (visits.get(name) ?? 0) + 1;
      visits.set(name, visit);
      open = { start: index, title: name, isState: true, visit, events: [index], outcome: 'running' };
      groups.push(open);
      return;
    }
    if (open && !event.type.startsWith('Execution')) {
      open.events.push(index);
      if (FAILURE.test(event.type)) open.outcome = 'caught';
      if (event.type.endsWith('StateExited') && open.outcome === 'running') open.outcome = 'succeeded';
      if (event.type.endsWith('StateExited')) open = undefined;
      return;
    }
    // An execution's own event, or an event outside any state (a history that starts mid-way).
    const failed = FAILURE.test(event.type);
    if (open && failed) open.outcome = 'failed';
    open = undefined;
    groups.push({
      start: index,
      title: event.type,
      isState: false,
      visit: 1,
      events: [index],
      outcome: failed ? 'failed' : event.type.endsWith('Succeeded') ? 'succeeded' : 'neutral',
    });
  });
  return groups;
}
