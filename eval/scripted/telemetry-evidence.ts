import type { LedgerEntry } from '../graders/incident.ts';
import { type Scenario, seedScenario } from '../telemetry/scenario.ts';
import {
  EVAL_NAMESPACE,
  EVAL_SERVICE_NAMES,
  type EvalService,
  logGroupOf,
  stackOf,
} from '../telemetry/services.ts';

/**
 * What the data tools would show of a scenario, one evidence entry per tool and service (its
 * logs, its metrics, its deployments), from the lines, metrics and stack events the scenario
 * seeds: the material scripted answers cite, as a real run's evidence ledger would hold it.
 */

export type DataTool = 'query_logs' | 'query_metrics' | 'recent_deployments';

export interface ScenarioEvidence {
  ledger: LedgerEntry[];
  text: Record<string, string>;
  idOf(tool: DataTool, service: string): string;
}

/** A far-past `now`: the data's shape does not depend on the date. */
const NOW = Date.UTC(2001, 2, 5, 15, 0);

const built = new WeakMap<Scenario, ScenarioEvidence>();

/** The evidence of `scenario`, built once per scenario. */
export function scenarioEvidence(scenario: Scenario): ScenarioEvidence {
  const known = built.get(scenario);
  if (known) return known;
  const evidence = buildEvidence(scenario);
  built.set(scenario, evidence);
  return evidence;
}

function buildEvidence(scenario: Scenario): ScenarioEvidence {
  const logs = new Map<string, string[]>();
  const metrics = new Map<string, Map<string, { min: number; max: number }>>();
  const deployments = new Map<string, string[]>();
  seedScenario(scenario, NOW, {
    logs: {
      put: (group, _stream, event) => {
        const service = group.split('/').at(-1) ?? group;
        logs.set(service, [...(logs.get(service) ?? []), event.message]);
      },
    },
    metrics: {
      put: (id, _t, value) => {
        const service = id.dimensions?.find((d) => d.Name === 'Service')?.Value ?? '';
        const names = metrics.get(service) ?? new Map();
        const seen = names.get(id.name) ?? { min: value, max: value };
        names.set(id.name, { min: Math.min(seen.min, value), max: Math.max(seen.max, value) });
        metrics.set(service, names);
      },
    },
    cloudformation: {
      addEvents: (stack, events) =>
        void deployments.set(stack, [
          ...(deployments.get(stack) ?? []),
          ...events.map((e) => `${e.logicalResourceId} ${e.resourceType} ${e.resourceStatus}`),
        ]),
    },
  });
  const ledger: LedgerEntry[] = [];
  const text: Record<string, string> = {};
  const ids = new Map<string, string>();
  const add = (tool: DataTool, service: EvalService, source: string, query: string, body: string) => {
    const id = `ev-${ledger.length + 1}`;
    ledger.push({ id, tool, source, query });
    text[id] = `Evidence ${id} (${tool}, ${source}). Cite it as ${id}.\n${body}`;
    ids.set(`${tool}:${service}`, id);
  };
  for (const service of EVAL_SERVICE_NAMES) {
    add(
      'query_logs',
      service,
      `cloudwatch:${logGroupOf(service)}`,
      'insights: fields @message',
      (logs.get(service) ?? []).join('\n'),
    );
    const names = [...(metrics.get(service) ?? new Map()).entries()];
    add(
      'query_metrics',
      service,
      `cloudwatch:${EVAL_NAMESPACE}`,
      `${names.map(([n]) => n).join(',')} Average 60s ${JSON.stringify({ Service: service })}`,
      names.map(([n, r]) => `${n}: min ${r.min} max ${r.max}`).join('\n'),
    );
    const events = deployments.get(stackOf(service)) ?? [];
    add(
      'recent_deployments',
      service,
      `cloudformation:${stackOf(service)}`,
      `deployments of ${service}`,
      `${events.length > 0 ? 1 : 0} deployments of ${stackOf(service)}.\n${events.join('\n')}`,
    );
  }
  return {
    ledger,
    text,
    idOf: (tool, service) => {
      const id = ids.get(`${tool}:${service}`);
      if (!id) throw new Error(`no ${tool} evidence of ${service}`);
      return id;
    },
  };
}
