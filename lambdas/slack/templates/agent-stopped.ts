import * as z from 'zod';
import { stopSentence } from '../../kernel/stop-causes.ts';
import type { TemplateSpec } from './index.ts';

/**
 * `agent_stopped`: a workflow's stop, told in its thread with its real cause. The state machine
 * hands the failure its Catch recorded (`$.failure`) and what stopped; the sentence is chosen in
 * kernel/stop-causes.ts.
 */
const AgentStoppedData = z.object({
  failure: z.looseObject({ Error: z.string().optional(), Cause: z.string().optional() }),
  work: z.string().min(1).max(60),
  command: z.string().startsWith('/').max(40),
});

export const AGENT_STOPPED_TEMPLATE: TemplateSpec<z.infer<typeof AgentStoppedData>> = {
  data: AgentStoppedData,
  render: (data) => ({ text: stopSentence(data.failure, data) }),
};
