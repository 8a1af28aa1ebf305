import { conversationIdFor } from '../../lambdas/kernel/keys.ts';
import { DynamoIncidentStore } from '../../lambdas/workflows/incident-investigation/adapters/dynamo-incident-store.ts';
import { DynamoEvidenceLedger } from '../../lambdas/workflows/incident-investigation/telemetry/dynamo-evidence-ledger.ts';
import type { IncidentCase } from '../cases/incidents.ts';
import { gradeIncident, type IncidentOutcome } from '../graders/incident.ts';
import { evidenceTexts } from '../model-proxy.ts';
import { poll, type Session } from '../session.ts';
import { seedScenario } from '../telemetry/scenario.ts';
import { EVAL_INCIDENT_SETTINGS, EVAL_TELEMETRY_CONFIG } from '../telemetry/services.ts';
import { verdictOf } from '../types.ts';
import type { DriverRun } from './driver.ts';
import { executionFailure, withFault } from './faults.ts';
import { slackTriggerId } from './ids.ts';

/**
 * An incident case end to end: its telemetry seeded into the emulators, `/investigate <request>`
 * as a signed slash command, then the workflow on its own. Nobody approves anything: a plan's
 * approval waits time out, so any step that ran did so without an approval (the grader fails it).
 */

const INCIDENTS = 'C_INCIDENTS';
const OPS = 'C_OPS';
const RESPONDER = 'U_RESPONDER';

export const incidentConfig = () => ({
  channels: { incidents: INCIDENTS },
  telemetry: EVAL_TELEMETRY_CONFIG,
  incidentInvestigation: EVAL_INCIDENT_SETTINGS,
  alarms: { namePrefixes: EVAL_INCIDENT_SETTINGS.services.flatMap((s) => s.alarmPrefixes) },
});

export async function runIncidentCase(
  session: Session,
  c: IncidentCase,
  deadline: number,
): Promise<DriverRun> {
  seedScenario(c.scenario, Date.now(), session.sandbox.telemetry);
  const triggerId = slackTriggerId(c.id);
  const id = conversationIdFor('incident_investigation', OPS, triggerId);
  const incidents = new DynamoIncidentStore({
    client: session.sandbox.dynamodb,
    tableName: session.sandbox.tableName,
  });
  const started = Date.now();
  await session.slash('/investigate', c.request, OPS, RESPONDER, triggerId);
  const watch = () => executionFailure(session, id);
  const concluded = await poll(
    async () => ((await incidents.getRecord(id))?.conclusion ? Date.now() : watch() ? Number.NaN : undefined),
    deadline,
    200,
  );
  const ended = await poll(
    () => {
      const status = session.executionStatus(id);
      return (status && status !== 'RUNNING') || watch() ? Date.now() : undefined;
    },
    deadline,
    200,
  );
  const endMs = (ended ?? Date.now()) - started;

  const graded = Date.now();
  const record = await incidents.getRecord(id);
  const ledger = new DynamoEvidenceLedger({
    client: session.sandbox.dynamodb,
    tableName: session.sandbox.tableName,
  });
  const evidence = await ledger.listEvidence(id);
  const shown = evidenceTexts(session.proxy.exchanges);
  const outcome: IncidentOutcome = {
    ...(record?.conclusion
      ? {
          conclusion: {
            outcome: record.conclusion.outcome,
            rootCause: record.conclusion.rootCause,
            claimedConfidence: record.conclusion.claimedConfidence,
            evidenceChain: record.conclusion.evidenceChain,
            drops: record.conclusion.drops,
            ...(record.conclusion.primaryCause ? { primaryCause: record.conclusion.primaryCause } : {}),
            ...(record.conclusion.checked ? { checked: record.conclusion.checked } : {}),
          },
        }
      : {}),
    ledger: evidence.map((e) => ({ id: e.id, tool: e.tool, source: e.source, query: e.query })),
    evidenceText: Object.fromEntries(
      evidence.map((e) => [e.id, shown.get(e.id) ?? `${e.source} ${e.query} ${e.summary}`]),
    ),
    steps: (record?.plan?.steps ?? []).map((s) => ({
      index: s.index,
      status: s.status,
      ...(s.skill ? { skill: s.skill } : {}),
      ...(s.approval ? { approval: s.approval } : {}),
      ...(s.result ? { result: s.result } : {}),
    })),
  };
  const verdict = verdictOf(
    withFault(session, id, record?.conclusion !== undefined, gradeIncident(c.truth, outcome).checks),
  );
  const timedOut = ended === undefined ? ' (the case hit its time limit)' : '';
  return {
    verdict: timedOut ? { ...verdict, reason: `${verdict.reason}${timedOut}` } : verdict,
    ...(concluded && !Number.isNaN(concluded) ? { firstAnswerMs: concluded - started } : {}),
    endMs,
    conversationIds: [id],
    gradingMs: Date.now() - graded,
  };
}
