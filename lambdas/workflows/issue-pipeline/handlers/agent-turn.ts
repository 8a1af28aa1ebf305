import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { ISSUE_PIPELINE_ROLES } from '../profiles/roles.ts';
import { ISSUE_PIPELINE_PLAN } from '../progress-plan.ts';

/**
 * The issue pipeline's AgentTurn: its triage, analyst, writer and reviewer turns. The
 * pipeline's money and token ceilings are reserved against before every model call (with the
 * conversation's own), so they hold between hand-offs too, not only at them. A GitHub
 * commenter's text enters the prompt as verified only for someone with write access to the
 * repository (GitHub's collaborator permission, asked once per sender per turn) and only for a
 * comment never refused before (an edit of one stays unverified); anyone else's is unverified
 * outside content (kernel/people-text.ts), labelled or left out as configured.
 *
 * Each role loads on the first turn that runs it (profiles/roles.ts), the pipeline's settings
 * (settings.ts) and its GitHub client (verify-senders.ts) on the first turn that reads them: a
 * cold start compiles and builds none of them, and a turn never loads the document's store.
 */
export const handler = createAgentTurnHandler(ISSUE_PIPELINE_ROLES, {
  plan: ISSUE_PIPELINE_PLAN,
  conversationCeiling: async () => {
    const { maxCostUsd, maxTokens } = (await import('./settings.ts')).pipelineSettings();
    return { maxCostUsd, maxTokens };
  },
  verifySenders: async (messages) => {
    if (!messages.some((m) => m.senderId.startsWith('github:'))) return messages;
    return (await import('./verify-senders.ts')).verifyGithubSenders(messages);
  },
});
