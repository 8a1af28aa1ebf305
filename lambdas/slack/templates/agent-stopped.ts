import * as z from 'zod';
import { stopSentence } from '../../kernel/stop-causes.ts';
import type { TemplateSpec } from './index.ts';

/**
 * `agent_stopped`: a workflow's stop, told in its thread with its real cause. The state machine
 * hands the failure its Catch recorded (`$.failure`) and what stopped; the sentence is chosen in
 * kernel/stop-causes.ts.
 */
const Failure = z.looseObject({ Error: z.string().optional(), Cause: z.string().optional() });
const Work = z.string().min(1).max(60);
/** The work stopped, and the command that starts it again or what to do instead. */
const AgentStoppedData = z.union([
  z.object({ failure: Failure, work: Work, command: z.string().startsWith('/').max(40) }),
  z.object({ failure: Failure, work: Work, restart: z.string().min(1).max(80) }),
]);

export const AGENT_STOPPED_TEMPLATE: TemplateSpec<z.infer<typeof AgentStoppedData>> = {
  data: AgentStoppedData,
  render: (data) => ({ text: stopSentence(data.failure, data) }),
};
