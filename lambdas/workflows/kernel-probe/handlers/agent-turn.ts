import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { probeAgent } from '../profile.ts';

/** The probe's AgentTurn: its one role, `probe_agent`. */
export const handler = createAgentTurnHandler({ probe_agent: async () => probeAgent });
