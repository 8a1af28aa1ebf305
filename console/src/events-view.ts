/**
 * The execution's event history, grouped per state visit (event-groups.ts): a group's header
 * says the state, how many events it holds, its outcome and when it began; opening it shows
 * its events, and opening an event its input, output or error.
 */

import type { ExecutionDetail, HistoryEvent } from './api.ts';
import { h } from './dom.ts';
import { type EventGroup, groupEvents } from './event-groups.ts';
import { clock, elapsed, prettyJson } from './format.ts';
import type { Actions, State } from './state.ts';

function eventClass(event: HistoryEvent): string {
  if (/(Failed|TimedOut|Aborted)$/.test(event.type)) return 'bad';
  if (/Succeeded$/.test(event.type)) return 'good';
  if (/StateEntered$/.test(event.type)) return 'entered';
  return '';
}

const OUTCOME_LABEL: Record<EventGroup['outcome'], string> = {
  running: 'running',
  succeeded: 'done',
  failed: 'failed',
  caught: 'error, went on',
  neutral: '',
};

function eventItem(state: State, actions: Actions, events: HistoryEvent[], i: number, start: Date) {
  const event = events[i];
  if (!event) return null;
  const open = state.expandedEvents.has(i);
  const hasDetail =
    event.input !== undefined ||
    event.output !== undefined ||
    event.parameters !== undefined ||
    event.error !== undefined;
  const at = new Date(event.timestamp);
  return h(
    'li',
    {
      class: `event ${eventClass(event)}${open ? ' open' : ''}`,
      'data-testid': 'event',
      'data-type': event.type,
    },
    h(
      'button',
      {
        type: 'button',
        class: 'event-row',
        'aria-expanded': hasDetail ? String(open) : undefined,
        disabled: !hasDetail,
        onclick: () => actions.toggleEvent(i),
      },
      h('span', { class: 'event-id' }, String(i + 1)),
      h('span', { class: 'event-type' }, event.type),
      h('span', { class: 'event-state' }, event.stateName ?? ''),
      h('time', { datetime: event.timestamp, title: clock(at) }, elapsed(start, at)),
    ),
    open
      ? h(
          'div',
          { class: 'io' },
          event.input !== undefined
            ? h('div', null, h('h3', null, 'Input'), h('pre', null, prettyJson(event.input)))
            : null,
          event.parameters !== undefined
            ? h('div', null, h('h3', null, 'Parameters'), h('pre', null, prettyJson(event.parameters)))
            : null,
          event.output !== undefined
            ? h('div', null, h('h3', null, 'Output'), h('pre', null, prettyJson(event.output)))
            : null,
          event.error !== undefined
            ? h('div', null, h('h3', null, 'Error'), h('pre', null, event.error))
            : null,
        )
      : null,
  );
}

export function eventsSection(state: State, actions: Actions, execution: ExecutionDetail): HTMLElement {
  const events = execution.events;
  const start = events[0] ? new Date(events[0].timestamp) : new Date();
  const groups = groupEvents(events);
  const allOpen = groups.length > 0 && groups.every((g) => state.expandedGroups.has(g.start));
  return h(
    'section',
    { class: 'events', 'data-testid': 'events' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', null, 'Event history'),
      h(
        'span',
        { class: 'sub', 'data-testid': 'event-count' },
        `${events.length} events in ${groups.length} steps`,
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'small',
          'data-testid': 'toggle-all-groups',
          onclick: () => actions.setEventGroups(allOpen ? [] : groups.map((g) => g.start)),
        },
        allOpen ? 'Collapse all' : 'Expand all',
      ),
    ),
    h(
      'ol',
      { class: 'event-groups' },
      groups.map((group) => {
        const open = state.expandedGroups.has(group.start);
        const first = events[group.start];
        const at = first ? new Date(first.timestamp) : start;
        return h(
          'li',
          {
            class: `event-group outcome-${group.outcome}${open ? ' open' : ''}`,
            'data-testid': 'event-group',
            'data-state': group.title,
            'data-outcome': group.outcome,
          },
          h(
            'button',
            {
              type: 'button',
              class: 'event-group-row',
              'aria-expanded': String(open),
              onclick: () => actions.toggleEventGroup(group.start),
            },
            h('span', { class: 'chevron', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
            h(
              'span',
              { class: 'group-title' },
              group.title,
              group.visit > 1 ? h('span', { class: 'visit' }, ` (visit ${group.visit})`) : null,
            ),
            h(
              'span',
              { class: 'group-meta' },
              `${group.events.length} ${group.events.length === 1 ? 'event' : 'events'}`,
              OUTCOME_LABEL[group.outcome] ? ` · ${OUTCOME_LABEL[group.outcome]}` : '',
            ),
            h('time', { datetime: first?.timestamp ?? '', title: clock(at) }, elapsed(start, at)),
          ),
          open
            ? h(
                'ol',
                { class: 'event-list' },
                group.events.map((i) => eventItem(state, actions, events, i, start)),
              )
            : null,
        );
      }),
    ),
  );
}
