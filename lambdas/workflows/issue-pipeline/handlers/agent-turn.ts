import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { ISSUE_PIPELINE_PROFILES } from '../profiles/index.ts';
import { pipelineSettings } from './wiring.ts';

/**
 * The issue pipeline's AgentTurn: its triage, analyst, writer and reviewer turns. The
 * pipeline's money and token ceilings are reserved against before every model call (with the
 * conversation's own), so they hold between hand-offs too, not only at them.
 */
export const handler = createAgentTurnHandler(ISSUE_PIPELINE_PROFILES, {
  conversationCeiling: () => {
    const { maxCostUsd, maxTokens } = pipelineSettings();
    return { maxCostUsd, maxTokens };
  },
});
