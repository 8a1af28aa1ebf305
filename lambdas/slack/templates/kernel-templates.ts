import { AGENT_STOPPED_TEMPLATE } from './agent-stopped.ts';
import { defineTemplates } from './index.ts';

/** Templates every SlackPost function renders besides its workflow's own. */
export const KERNEL_TEMPLATES = defineTemplates({ agent_stopped: AGENT_STOPPED_TEMPLATE });
