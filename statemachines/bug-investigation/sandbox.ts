import { BugInvestigationSettings } from '../../lambdas/workflows/bug-investigation/config.ts';
import type { SandboxModule } from '../module-sandbox.ts';

/**
 * What the sandbox reads of the bug investigation's module (index.ts), which takes it from here:
 * its name, its configuration section, its workflow's name and its demo agents, without the code
 * that builds its state machines.
 */
export const BUG_INVESTIGATION_SANDBOX = {
  name: 'bug_investigation',
  settings: { key: 'bugInvestigation', schema: BugInvestigationSettings },
  workflows: [{ name: 'bug_investigation' }],
  demoAgents: async () => (await import('./demo.ts')).BUG_DEMO_AGENTS,
} satisfies SandboxModule;
