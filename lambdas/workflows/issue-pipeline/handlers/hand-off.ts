import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { createLogger } from '../../../shared/logger.ts';
import { acceptedAnswers } from '../answers.ts';
import { HandOffInput } from '../contract.ts';
import { handOff } from '../hand-off.ts';
import { github, issueStateStore, pipelineSettings } from './wiring.ts';

const logger = createLogger('issue-hand-off');
/** The platform's own GitHub sender id, once known ('' when the credentials cannot say: an App). */
let self: string | undefined;

/** "Hand off": validates an agent's output into the document and decides the next stage. */
export const handler = taskHandler({
  task: 'IssueHandOff',
  schema: HandOffInput,
  logger,
  run: async (input) => {
    const settings = pipelineSettings();
    const store = issueStateStore();
    const state = await store.load(input.conversationId);
    const conversation = await kernelDeps().store.getConversation(input.conversationId, { consistent: true });
    const ledger = conversation?.ledger;
    const spend = {
      tokens: (ledger?.inputTokens ?? 0) + (ledger?.outputTokens ?? 0),
      costMicroUsd: ledger?.costMicroUsd ?? 0,
    };
    let messages = input.messages;
    if (input.mode === 'people' && !input.timedOut && messages !== undefined) {
      const { octokit, repository } = await github();
      // With a token (not an App), the platform's own comments come back as a user's: never an answer.
      self ??= await octokit.rest.users
        .getAuthenticated()
        .then(({ data }) => `github:${data.login}`)
        .catch(() => '');
      const own = self;
      const others = messages.filter((m) => m.senderId !== own);
      const { accepted, refused } = await acceptedAnswers(others, async (username) => {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repository, username });
        return data.permission;
      });
      if (refused.length > 0)
        logger.info('answers from people who may not answer were left out', {
          senders: refused.map((m) => m.senderId),
        });
      if (accepted.length === 0 && input.previous !== undefined) {
        return { ...input.previous, waitAgain: true };
      }
      messages = accepted;
    }
    const result = handOff(
      state,
      { ...input, ...(messages === undefined ? {} : { messages }) },
      {
        limits: settings,
        sensitivePaths: settings.sensitivePaths,
        spend,
        nowMs: Date.now(),
      },
    );
    await store.save(input.conversationId, result.state);
    return result.handOff;
  },
  summary: (input, output) => ({
    agent: input.agent,
    mode: input.mode,
    next: output.next,
    attempt: output.attempt,
  }),
});
