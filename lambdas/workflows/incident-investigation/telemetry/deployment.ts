import { TELEMETRY_TOOL_NAMES, type TelemetryToolName, telemetryTools } from './tools.ts';

/**
 * What a workflow module needs to offer the telemetry tools to its agents (as the bug module
 * does with the code tools, statemachines/bug-investigation/functions.ts):
 *
 * - one function from `TELEMETRY_TOOLS_FUNCTION` in the module's `functions`, e.g.
 *   `IncidentTelemetryTools: TELEMETRY_TOOLS_FUNCTION`; its `access` asks for the table (the
 *   ledger), and the module's `provision` calls `grantTelemetryAccess` on it, which sets
 *   `TELEMETRY_CONFIG` from the configuration's `incidentInvestigation.telemetry` and grants exactly the
 *   reads it needs (statemachines/incident-investigation/telemetry-access.ts);
 * - the agent turn's `tools`: `telemetryToolFunctions('IncidentTelemetryTools')`;
 * - the profile's tools: `telemetryToolSpecs()` (or a subset).
 */

export const TELEMETRY_TOOLS_FUNCTION = {
  entry: 'lambdas/workflows/incident-investigation/handlers/telemetry-tools.ts',
  /** A Logs Insights query may run `insightsTimeoutSeconds` (20 s by default); paging adds a few. */
  timeoutSeconds: 60,
  /** The analysis of a few thousand lines is CPU-bound; Lambda gives CPU in proportion to memory. */
  memoryMb: 1024,
  access: { table: 'read_write' },
} as const;

export const ALL_TELEMETRY_TOOLS: readonly TelemetryToolName[] = Object.values(TELEMETRY_TOOL_NAMES);

/** The `ToolSpec`s of some telemetry tools, for a profile's `tools`. */
export function telemetryToolSpecs(names: readonly TelemetryToolName[] = ALL_TELEMETRY_TOOLS) {
  return names.map((name) => telemetryTools[name]);
}

/** Entries of an agent turn's `tools`: every telemetry tool served by the one function. */
export function telemetryToolFunctions<F extends string>(functionId: F): Record<TelemetryToolName, F> {
  return Object.fromEntries(ALL_TELEMETRY_TOOLS.map((name) => [name, functionId])) as Record<
    TelemetryToolName,
    F
  >;
}
