import { RequirementsInterviewSettings } from '../../lambdas/workflows/requirements-interview/config.ts';
import type { SandboxModule } from '../module-sandbox.ts';

/**
 * What the sandbox reads of the requirements interview's module (index.ts), which takes it from
 * here: its name, its configuration section, its workflow's name and its demo agents, without
 * the code that builds its state machine.
 */
export const REQUIREMENTS_INTERVIEW_SANDBOX = {
  name: 'requirements_interview',
  settings: { key: 'requirementsInterview', schema: RequirementsInterviewSettings },
  workflows: [{ name: 'requirements_interview' }],
  demoAgents: async () => (await import('./demo.ts')).REQUIREMENTS_DEMO_AGENTS,
} satisfies SandboxModule;
