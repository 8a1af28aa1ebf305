import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { kernelTableOptions } from '../../handlers/table-options.ts';
import { kernelDeps } from '../../handlers/wiring.ts';
import { mcpToolName } from '../../mcp/tool-names.ts';
import type { McpEvidence } from '../../mcp/toolset.ts';
import { ENV, requireEnv } from '../../shared/env.ts';
import { DynamoIncidentStore } from './adapters/dynamo-incident-store.ts';
import { INCIDENT_ENV, InvestigationConfig, RemediationConfig } from './config.ts';
import { IncidentConfigurationError } from './errors.ts';
import type { EvidenceLedger } from './investigation.ts';
import { DynamoEvidenceLedger } from './telemetry/dynamo-evidence-ledger.ts';
import { evidenceHeader, UNSCOPED } from './telemetry/evidence.ts';

/**
 * The incident investigation's adapters, built once per Lambda instance on first use (not at
 * import: the sandbox loads handler modules before it sets their environment).
 */

let incidents: DynamoIncidentStore | undefined;

export function incidentStore(): DynamoIncidentStore {
  incidents ??= new DynamoIncidentStore(kernelTableOptions());
  return incidents;
}

function readJson<T>(variable: string, parse: (value: unknown) => T): T {
  try {
    return parse(JSON.parse(requireEnv(variable as never)));
  } catch (cause) {
    throw new IncidentConfigurationError(variable, { cause });
  }
}

export function investigationConfig(): InvestigationConfig {
  return readJson(INCIDENT_ENV.investigation, (v) => InvestigationConfig.parse(v));
}

export function remediationConfig(): RemediationConfig {
  return readJson(INCIDENT_ENV.remediation, (v) => RemediationConfig.parse(v));
}

let ledger: DynamoEvidenceLedger | undefined;

function dynamoLedger(): DynamoEvidenceLedger {
  ledger ??= new DynamoEvidenceLedger({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
  });
  return ledger;
}

/** The evidence ledger the telemetry tools write (lambdas/workflows/incident-investigation/telemetry), read to check citations. */
export function evidenceLedger(): EvidenceLedger {
  const reader = dynamoLedger();
  return { list: (conversationId) => reader.listEvidence(conversationId) };
}

export function conversations() {
  return kernelDeps().store;
}

/**
 * An MCP result as evidence (docs/mcp.md): recorded in the ledger the telemetry tools write, so
 * a finding may cite it like theirs; the line returned tells the model its id.
 */
export const recordMcpEvidence: McpEvidence = async (conversationId, call) =>
  evidenceHeader(
    await dynamoLedger().record(conversationId, {
      tool: mcpToolName(call.server, call.tool),
      source: `mcp:${call.server}`,
      query: JSON.stringify(call.args).slice(0, 1_000),
      scope: call.scope ?? UNSCOPED,
      summary: call.text.replace(/\s+/g, ' ').slice(0, 300),
    }),
  );
