/**
 * A workflow's own per-conversation metrics as ledger tiles: today the incident
 * investigation's AgentMetrics, which the sandbox adds to a conversation's detail
 * once the investigation has finished. Pure, so it is tested without a browser.
 */

/** What the sandbox sends: metric name to a number or a word (`outcome`); an absent one shows no tile. */
export type WorkflowMetrics = Readonly<Record<string, number | string | undefined>>;

export interface MetricTile {
  label: string;
  value: string;
  testId: string;
}

const LABELS: Readonly<Record<string, string>> = {
  hypothesesFormed: 'hypotheses formed',
  hypothesesPruned: 'hypotheses pruned',
  hypothesesConfirmed: 'hypotheses confirmed',
  averageDepth: 'average depth',
  maxDepth: 'max depth',
  rounds: 'rounds',
  toolCallsPerInvestigation: 'tool calls',
  findingsDropped: 'findings dropped',
  timeToRootCause: 'time to root cause',
  approvalsRequested: 'approvals requested',
  approvalsGranted: 'approvals granted',
  clarificationsNeeded: 'clarifications',
  outcome: 'outcome',
};

/** A name the table above does not know still reads as words: `someNewMetric` -> `some new metric`. */
function labelOf(name: string): string {
  return LABELS[name] ?? name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

export function metricTiles(metrics: WorkflowMetrics | undefined): MetricTile[] {
  const present = Object.entries(metrics ?? {}).filter(
    (entry): entry is [string, number | string] => entry[1] !== undefined,
  );
  return present.map(([name, raw]) => ({
    label: labelOf(name),
    value:
      typeof raw === 'string'
        ? raw.replace(/_/g, ' ')
        : name === 'timeToRootCause'
          ? `${raw.toLocaleString('en-US')} s`
          : raw.toLocaleString('en-US'),
    testId: `metric-${name}`,
  }));
}
