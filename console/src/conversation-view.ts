/**
 * A conversation: its ledger, its execution's graph (the ASL the sandbox runs, coloured by
 * the history), the selected state's input and output, the event history, and the messages
 * the kernel stored for it.
 */

import { formatUsd } from '../../lambdas/shared/money.ts';
import type { ConversationSummary, ExecutionDetail, StoredMessage } from './api.ts';
import { type Child, h } from './dom.ts';
import { eventsSection } from './events-view.ts';
import { type ExecutionPath, executionPath } from './execution-path.ts';
import { feedbackSection } from './feedback-view.ts';
import { clock, humanize, number, prettyJson, tsDate } from './format.ts';
import { asAsl } from './graph-layout.ts';
import { graphLegend, renderGraph } from './graph-view.ts';
import { originOf, readableStatus, subjectLine } from './readable.ts';
import { type Actions, type State, userName } from './state.ts';
import { metricTiles } from './workflow-metrics.ts';
import { hasWorkspace, historyFacts, workspaceFacts } from './workspace-facts.ts';
import { workspaceSection } from './workspace-panel.ts';

export function renderConversationHeader(state: State, actions: Actions): Child[] {
  const c = state.detail?.conversation;
  const executions = state.detail?.executions ?? [];
  return [
    h(
      'button',
      {
        type: 'button',
        class: 'icon back',
        title: 'Back to the channel',
        onclick: () => actions.closeConversation(),
      },
      '‹',
    ),
    h(
      'h1',
      { title: state.conversationId ?? '' },
      c ? (subjectLine(c.opening, (id) => userName(state, id)) ?? humanize(c.workflow)) : 'Conversation',
      h('span', { class: 'sub' }, ` ${c ? humanize(c.workflow) : ''} ${state.conversationId ?? ''}`),
    ),
    c
      ? h(
          'span',
          {
            class: `badge status-${c.status}`,
            title: `${c.status} · ${c.phase}`,
            'data-testid': 'conversation-status',
          },
          readableStatus(c.status, c.phase),
        )
      : null,
    c?.agentTurnRunning
      ? h('span', { class: 'badge running' }, h('span', { class: 'spinner' }), 'agent turn')
      : null,
    executions.length > 1
      ? h(
          'select',
          {
            class: 'execution-select',
            'aria-label': 'Execution',
            onchange: (event) => actions.selectExecution((event.target as HTMLSelectElement).value),
          },
          executions.map((e) =>
            h(
              'option',
              { value: e.name, selected: e.name === state.executionName },
              `${e.name} (${e.status})`,
            ),
          ),
        )
      : null,
  ];
}

function ledger(state: State): HTMLElement {
  const l = state.detail?.conversation.ledger ?? {};
  const tile = (label: string, value: string, testId: string, title?: string) =>
    h(
      'div',
      { class: 'tile', 'data-testid': testId, ...(title ? { title } : {}) },
      h('span', { class: 'value' }, value),
      h('span', { class: 'label' }, label),
    );
  return h(
    'section',
    { class: 'ledger', 'aria-label': 'Ledger' },
    tile('input tokens', number(l.inputTokens), 'ledger-input'),
    tile('output tokens', number(l.outputTokens), 'ledger-output'),
    tile('cache reads', number(l.cacheReadTokens), 'ledger-cache'),
    tile('estimated model cost', formatUsd(l.costMicroUsd ?? 0), 'ledger-cost'),
    // A channel conversation runs no state machine: it has no transitions to count.
    ...(state.detail?.conversation.workflow === 'channel_conversations'
      ? []
      : [tile('state transitions', number(l.transitions), 'ledger-transitions')]),
    tile('Lambda time', `${((l.lambdaMs ?? 0) / 1000).toFixed(2)} s`, 'ledger-lambda'),
    tile(
      'secrets redacted',
      number(l.redactedSecrets),
      'ledger-redacted-secrets',
      redactedKinds(l.redactedKinds, 'secret'),
    ),
    tile(
      'personal data redacted',
      number(l.redactedPii),
      'ledger-redacted-pii',
      redactedKinds(l.redactedKinds, 'pii'),
    ),
    ...metricTiles(state.detail?.conversation.workflowMetrics).map((m) => tile(m.label, m.value, m.testId)),
  );
}

/** The family's kinds, most first (`2 aws-access-key, 1 github-token`): counts, never values. */
function redactedKinds(kinds: Record<string, number> | undefined, family: string): string | undefined {
  const mine = Object.entries(kinds ?? {})
    .filter(([kind, count]) => kind.startsWith(`${family}:`) && count > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([kind, count]) => `${count} ${kind.slice(family.length + 1)}`);
  return mine.length > 0 ? mine.join(', ') : undefined;
}

function graphSection(
  state: State,
  actions: Actions,
  execution: ExecutionDetail,
  path: ExecutionPath,
): HTMLElement {
  const asl = asAsl(execution.definition);
  const zoomButton = (label: string, zoom: State['zoom'], title: string) =>
    h(
      'button',
      {
        type: 'button',
        class: `small${state.zoom === zoom ? ' active' : ''}`,
        'data-testid': `zoom-${zoom}`,
        title,
        onclick: () => actions.setZoom(zoom),
      },
      label,
    );
  const current = path.current;
  return h(
    'section',
    { class: 'graph-section' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', null, 'Execution graph'),
      h(
        'span',
        { class: 'current-state', 'data-testid': 'current-state', 'data-state': current ?? '' },
        current ? ['Now in ', h('strong', null, current)] : `Execution ${execution.status.toLowerCase()}`,
      ),
      h(
        'span',
        { class: 'zoom' },
        zoomButton('Around', 'focus', 'The state running now (or the last one) and its neighbours'),
        zoomButton('Fit', 'fit', 'Fit the graph to the panel'),
        zoomButton('75%', 0.75, 'Zoom 75%'),
        zoomButton('100%', 1, 'Zoom 100%'),
      ),
    ),
    h(
      'div',
      { class: 'graph-scroll', 'data-testid': 'graph-scroll' },
      asl
        ? renderGraph(asl, path, {
            ...(state.selectedState ? { selected: state.selectedState } : {}),
            onSelect: (name) => actions.selectState(name),
          })
        : h('p', { class: 'empty' }, 'This execution has no definition to draw.'),
    ),
    graphLegend(),
  );
}

function stateDetail(state: State, actions: Actions, path: ExecutionPath): HTMLElement | null {
  const name = state.selectedState;
  if (!name) return h('p', { class: 'hint' }, 'Click a state to see its input and output.');
  const run = path.states.get(name);
  return h(
    'section',
    { class: 'state-detail', 'data-testid': 'state-detail' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', null, name),
      h(
        'span',
        { class: 'sub' },
        run
          ? `entered ${run.entered}× · ${run.status}${run.failures ? ` · ${run.failures} failure(s)` : ''}`
          : 'not run',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'icon close',
          title: 'Close',
          onclick: () => actions.selectState(undefined),
        },
        '✕',
      ),
    ),
    run
      ? h(
          'div',
          { class: 'io' },
          h(
            'div',
            null,
            h('h3', null, 'Input'),
            h('pre', null, run.lastInput === undefined ? '—' : prettyJson(run.lastInput)),
          ),
          h(
            'div',
            null,
            h('h3', null, 'Output'),
            h('pre', null, run.lastOutput === undefined ? '—' : prettyJson(run.lastOutput)),
          ),
          run.lastError ? h('div', null, h('h3', null, 'Error'), h('pre', null, run.lastError)) : null,
        )
      : null,
  );
}

function historySection(state: State, messages: StoredMessage[]): HTMLElement {
  return h(
    'section',
    { class: 'history', 'data-testid': 'conversation-history' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', null, 'Conversation history'),
      h('span', { class: 'sub' }, `${messages.length} stored messages`),
    ),
    messages.length === 0
      ? h('p', { class: 'empty' }, 'No messages stored yet.')
      : h(
          'ol',
          { class: 'stored-messages' },
          messages.map((m) =>
            h(
              'li',
              { class: `stored ${m.senderType}` },
              h(
                'div',
                { class: 'stored-meta' },
                h('span', { class: `badge sender-${m.senderType}` }, m.senderType),
                h(
                  'span',
                  { class: 'author' },
                  state.users.find((u) => u.id === m.senderId)?.realName ?? m.senderId,
                ),
                m.messageType !== 'message' ? h('span', { class: 'badge' }, m.messageType) : null,
                h('time', { title: m.ts }, clock(tsDate(m.ts))),
                h(
                  'span',
                  { class: 'delivered' },
                  m.deliveredInTurn === undefined ? 'pending' : `turn ${m.deliveredInTurn}`,
                ),
              ),
              h('div', { class: 'stored-text' }, m.text),
            ),
          ),
        ),
  );
}

/** The workflow's own document (its state document), collapsed under the graph. */
function documentSection(document: unknown): HTMLElement | null {
  if (document === undefined) return null;
  return h(
    'details',
    { class: 'execution-io', 'data-testid': 'workflow-document' },
    h('summary', null, 'Workflow state document'),
    h('pre', null, prettyJson(document)),
  );
}

/**
 * What began a conversation that did not begin in a Slack thread (a GitHub issue, an alert):
 * shown first, since there is no thread to open beside it.
 */
function startedBy(
  conversation: ConversationSummary,
  messages: readonly StoredMessage[],
): HTMLElement | null {
  const origin = originOf(conversation.anchors[0]);
  if (origin === undefined) return null;
  const opening = conversation.opening ?? messages.find((m) => m.senderType !== 'bot')?.text;
  return h(
    'section',
    { class: 'started-by', 'data-testid': 'started-by' },
    h('h2', null, `Started by ${origin}`),
    opening ? h('pre', { class: 'opening' }, opening) : null,
  );
}

export function renderConversationBody(state: State, actions: Actions): Child[] {
  if (!state.detail)
    return [h('p', { class: 'empty' }, state.conversationId ? 'Loading…' : 'Pick a conversation.')];
  const execution = state.execution;
  const path = execution ? executionPath(execution.events, execution.status) : undefined;
  const workspace =
    execution && state.conversationId
      ? workspaceFacts(state.conversationId, historyFacts(execution.events), state.repositories ?? [])
      : undefined;
  return [
    startedBy(state.detail.conversation, state.detail.messages),
    ledger(state),
    execution && path
      ? graphSection(state, actions, execution, path)
      : h('p', { class: 'empty' }, 'No execution yet.'),
    execution && path ? stateDetail(state, actions, path) : null,
    documentSection(state.detail.conversation.workflowDocument),
    workspace && hasWorkspace(workspace) ? workspaceSection(workspace) : null,
    execution ? eventsSection(state, actions, execution) : null,
    historySection(state, state.detail.messages),
    state.conversationId ? feedbackSection(state.conversationId, (id) => userName(state, id)) : null,
    execution
      ? h(
          'details',
          { class: 'execution-io' },
          h(
            'summary',
            null,
            `Execution ${execution.name}: input${execution.output === undefined ? '' : ' and output'}`,
          ),
          h('pre', null, prettyJson(execution.input)),
          execution.output === undefined ? null : h('pre', null, prettyJson(execution.output)),
          execution.error ? h('pre', { class: 'bad' }, `${execution.error}: ${execution.cause ?? ''}`) : null,
        )
      : null,
  ].filter((x): x is HTMLElement => x !== null);
}
