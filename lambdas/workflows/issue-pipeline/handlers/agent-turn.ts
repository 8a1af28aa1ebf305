import { loadedProfiles } from '../../../agents/profile.ts';
import { createAgentTurnHandler } from '../../../handlers/agent-turn.ts';
import { judgeGithubAuthors } from '../answers.ts';
import { ISSUE_PIPELINE_PROFILES } from '../profiles/index.ts';
import { ISSUE_PIPELINE_PLAN } from '../progress-plan.ts';
import { authorityDeps, github, pipelineSettings } from './wiring.ts';

/**
 * The issue pipeline's AgentTurn: its triage, analyst, writer and reviewer turns. The
 * pipeline's money and token ceilings are reserved against before every model call (with the
 * conversation's own), so they hold between hand-offs too, not only at them. A GitHub
 * commenter's text enters the prompt as verified only for someone with write access to the
 * repository (GitHub's collaborator permission, asked once per sender per turn) and only for a
 * comment never refused before (an edit of one stays unverified); anyone else's is unverified
 * outside content (kernel/people-text.ts), labelled or left out as configured.
 */
export const handler = createAgentTurnHandler(loadedProfiles(ISSUE_PIPELINE_PROFILES), {
  plan: ISSUE_PIPELINE_PLAN,
  conversationCeiling: () => {
    const { maxCostUsd, maxTokens } = pipelineSettings();
    return { maxCostUsd, maxTokens };
  },
  verifySenders: async (messages) => {
    if (!messages.some((m) => m.senderId.startsWith('github:'))) return messages;
    const { octokit, repository } = await github();
    const verdicts = await judgeGithubAuthors(messages, authorityDeps(octokit, repository));
    return messages.map((m) => (verdicts.has(m) ? { ...m, verified: verdicts.get(m) === undefined } : m));
  },
});
