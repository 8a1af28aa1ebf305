import { loadedProfiles } from '../../../agents/profile.ts';
import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { probeAgent } from '../profile.ts';

/** The probe's AgentTurn: its one role, `probe_agent`. */
export const handler = createAgentTurnHandler(loadedProfiles({ probe_agent: probeAgent }));
