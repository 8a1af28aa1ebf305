import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { kernelTableOptions } from '../../handlers/table-options.ts';
import { kernelDeps } from '../../handlers/wiring.ts';
import { ENV, requireEnv } from '../../shared/env.ts';
import { DynamoIncidentStore } from './adapters/dynamo-incident-store.ts';
import { INCIDENT_ENV, InvestigationConfig, RemediationConfig } from './config.ts';
import { IncidentConfigurationError } from './errors.ts';
import type { EvidenceLedger } from './investigation.ts';
import { DynamoEvidenceLedger } from './telemetry/dynamo-evidence-ledger.ts';

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

/** The evidence ledger the telemetry tools write (lambdas/workflows/incident-investigation/telemetry), read to check citations. */
export function evidenceLedger(): EvidenceLedger {
  ledger ??= new DynamoEvidenceLedger({
    client: new DynamoDBClient({}),
    tableName: requireEnv(ENV.tableName),
  });
  const reader = ledger;
  return { list: (conversationId) => reader.listEvidence(conversationId) };
}

export function conversations() {
  return kernelDeps().store;
}
