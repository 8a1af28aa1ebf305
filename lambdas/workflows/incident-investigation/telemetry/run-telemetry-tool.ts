import type * as z from 'zod';
import { invalidArgumentsMessage, ToolInvocation, type ToolResult } from '../../../tools/invocation.ts';
import { getIncident, recentDeployments, serviceMap } from './context-tools.ts';
import type { CallDeps, TelemetryDeps, ToolOutcome } from './deps.ts';
import { QueryRefusedError, TelemetrySourceError } from './errors.ts';
import { evidenceHeader, UNSCOPED } from './evidence.ts';
import { queryLogs } from './query-logs.ts';
import { queryMetrics } from './query-metrics.ts';
import { TELEMETRY_TOOL_SCHEMAS, TelemetryToolName } from './tools.ts';

/**
 * Runs one telemetry tool call: validates the arguments (zod), counts the query in its scope
 * (`context.scope`, set by the state machine, e.g. `round-2:h3`; `unscoped` without one) and
 * refuses the one past `queriesPerScope`, runs the tool, records the evidence in the ledger and
 * answers the model with the evidence id first.
 *
 * Answers `ok: false` (the model reads why and can correct its call) for wrong arguments,
 * refusals (too broad, budget spent, source disabled) and queries the source rejected as
 * invalid (a 4xx such as a malformed Insights query). Throws for what is not the model's doing:
 * a source that is down or throttling (`TelemetrySourceError`, `kind.retryable` for throttling and 5xx), the ledger.
 */

/** `context.scope` (the shared `ToolContext`, set by the state machine through AgentTurn) names the hypothesis and round, e.g. `round-2:h3`. */
export const TelemetryToolInvocation = ToolInvocation.extend({ tool: TelemetryToolName });
export type TelemetryToolInvocation = z.infer<typeof TelemetryToolInvocation>;

/** The tools that read a source, and so count against the scope's budget; service_map reads configuration. */
const COUNTED: ReadonlySet<TelemetryToolName> = new Set([
  'query_logs',
  'query_metrics',
  'recent_deployments',
  'get_incident',
]);

type Runner = (args: never, deps: CallDeps) => Promise<ToolOutcome>;
const RUNNERS: Record<TelemetryToolName, Runner> = {
  query_logs: queryLogs,
  query_metrics: queryMetrics,
  recent_deployments: recentDeployments,
  service_map: serviceMap,
  get_incident: getIncident,
};

export async function runTelemetryTool(
  invocation: TelemetryToolInvocation,
  deps: TelemetryDeps,
): Promise<ToolResult> {
  const { tool, conversationId } = invocation;
  const parsed = TELEMETRY_TOOL_SCHEMAS[tool].safeParse(invocation.args ?? {});
  if (!parsed.success) return { ok: false, error: invalidArgumentsMessage(tool, parsed.error) };
  const scope = invocation.context?.scope ?? UNSCOPED;
  const limit = deps.config.queriesPerScope;
  let used: number | undefined;
  const call: CallDeps = {
    ...deps,
    conversationId,
    async reserve() {
      if (!COUNTED.has(tool)) return;
      const reservation = await deps.ledger.reserveQuery(conversationId, scope, limit);
      if (!reservation.granted)
        throw new QueryRefusedError(
          'scope_budget',
          `the query budget of scope ${scope} is spent (${limit} queries per hypothesis per round): conclude from the evidence you have, or say what is missing`,
        );
      used = reservation.used;
    },
  };
  let outcome: ToolOutcome;
  try {
    outcome = await (RUNNERS[tool] as (args: unknown, deps: CallDeps) => Promise<ToolOutcome>)(
      parsed.data,
      call,
    );
  } catch (error) {
    if (error instanceof QueryRefusedError)
      return { ok: false, error: `Refused (${error.reason}): ${error.message}` };
    if (error instanceof TelemetrySourceError && error.kind.invalidQuery)
      return { ok: false, error: `The source rejected the query: ${error.message}` };
    throw error;
  }
  const record = await deps.ledger.record(conversationId, { ...outcome.evidence, tool, scope });
  const budget = used === undefined ? '' : ` Queries used in scope ${scope}: ${used} of ${limit}.`;
  return { ok: true, output: `${evidenceHeader(record)}${budget}\n\n${outcome.output}` };
}
