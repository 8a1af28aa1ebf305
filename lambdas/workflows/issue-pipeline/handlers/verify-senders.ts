import type { AgentTurnInput } from '../../../agents/contract.ts';
import { judgeGithubAuthors } from '../answers.ts';
import { authorityDeps, github } from './wiring.ts';

/**
 * Sets `verified` on each GitHub comment of a turn's messages: true only for someone with write
 * access to the repository, on a comment never refused before (answers.ts). Other messages
 * are left as they are.
 */
export async function verifyGithubSenders(
  messages: AgentTurnInput['messages'],
): Promise<AgentTurnInput['messages']> {
  const { octokit, repository } = await github();
  const verdicts = await judgeGithubAuthors(messages, authorityDeps(octokit, repository));
  return messages.map((m) => (verdicts.has(m) ? { ...m, verified: verdicts.get(m) === undefined } : m));
}
