import { IncidentInvestigationSettings } from '../../lambdas/workflows/incident-investigation/config.ts';
import type { SandboxModule } from '../module-sandbox.ts';

/**
 * What the sandbox reads of the incident investigation's module (index.ts), which takes it from
 * here: its name, its configuration section, its workflow's name, its demo agents and its view
 * in the console, without the code that builds its state machine.
 */
export const INCIDENT_INVESTIGATION_SANDBOX = {
  name: 'incident_investigation',
  settings: {
    key: 'incidentInvestigation',
    schema: IncidentInvestigationSettings,
    // The telemetry section was once a top-level key of the configuration.
    movedFrom: { telemetry: 'telemetry' },
  },
  workflows: [{ name: 'incident_investigation' }],
  demoAgents: async () => (await import('./demo.ts')).INCIDENT_DEMO_AGENTS,
  // The console's tiles: the investigation's metrics (AgentMetrics), from the incident's record.
  sandboxView: (table) => async (conversationId) => {
    const { DynamoIncidentStore } = await import(
      '../../lambdas/workflows/incident-investigation/adapters/dynamo-incident-store.ts'
    );
    return { metrics: (await new DynamoIncidentStore(table).getRecord(conversationId))?.metrics };
  },
} satisfies SandboxModule;
