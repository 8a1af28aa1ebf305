import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { githubLogin, WRITERS } from '../answers.ts';
import { ISSUE_PIPELINE_PROFILES } from '../profiles/index.ts';
import { ISSUE_PIPELINE_PLAN } from '../progress-plan.ts';
import { github, pipelineSettings } from './wiring.ts';

/**
 * The issue pipeline's AgentTurn: its triage, analyst, writer and reviewer turns. The
 * pipeline's money and token ceilings are reserved against before every model call (with the
 * conversation's own), so they hold between hand-offs too, not only at them. A GitHub
 * commenter's text enters the prompt as verified only for someone with write access to the
 * repository (GitHub's collaborator permission, asked once per sender per turn); anyone else's
 * is unverified outside content (kernel/people-text.ts), labelled or left out as configured.
 */
export const handler = createAgentTurnHandler(ISSUE_PIPELINE_PROFILES, {
  plan: ISSUE_PIPELINE_PLAN,
  conversationCeiling: () => {
    const { maxCostUsd, maxTokens } = pipelineSettings();
    return { maxCostUsd, maxTokens };
  },
  verifySenders: async (messages) => {
    const senders = [...new Set(messages.map((m) => m.senderId).filter((id) => id.startsWith('github:')))];
    if (senders.length === 0) return messages;
    const { octokit, repository } = await github();
    const writers = new Map<string, boolean>();
    for (const sender of senders) {
      const permission = await octokit.rest.repos
        .getCollaboratorPermissionLevel({ ...repository, username: githubLogin(sender) })
        .then(({ data }) => data.permission)
        .catch(() => 'none');
      writers.set(sender, WRITERS.has(permission));
    }
    return messages.map((m) => (writers.has(m.senderId) ? { ...m, verified: writers.get(m.senderId) } : m));
  },
});
