import { checkProtectedChanges } from '../../../changes/check-protected.ts';
import { readProtectedPaths } from '../../../changes/config.ts';
import type { ProtectedGateVerdict } from '../../../changes/gate.ts';
import { taskHandler } from '../../../handlers/task-handler.ts';
import { kernelDeps } from '../../../handlers/wiring.ts';
import { createLogger } from '../../../shared/logger.ts';
import { acceptedAnswers } from '../answers.ts';
import { HandOffInput } from '../contract.ts';
import { handOff } from '../hand-off.ts';
import { authorityDeps, github, issueStateStore, pipelineSettings } from './wiring.ts';

const logger = createLogger('issue-hand-off');
/** The hand-off's reason (the approval request's text) holds at most 2,000 characters. */
const HAND_OFF_REASON_CHARS = 1_990;
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
      const { accepted, refused } = await acceptedAnswers(others, authorityDeps(octokit, repository));
      if (refused.length > 0)
        logger.info('answers from people who may not answer were left out', {
          senders: refused.map((r) => r.message.senderId),
          reasons: refused.map((r) => r.reason),
        });
      if (accepted.length === 0 && input.previous !== undefined) {
        return { ...input.previous, waitAgain: true };
      }
      messages = accepted;
    }
    // The reviewer's verdict is the last stop before the Committer: the gate judges the
    // branch's real diff there (whatever the writer said it changed).
    let protectedGate: ProtectedGateVerdict | undefined;
    if (input.mode === 'work' && input.agent === 'reviewer' && input.turn?.action === 'submitted') {
      const { octokit, repository } = await github();
      protectedGate = await checkProtectedChanges(
        octokit,
        repository,
        { branch: state.commit.branch, handling: settings.protectedChanges },
        readProtectedPaths(settings.sensitivePaths),
        HAND_OFF_REASON_CHARS,
      );
      if (protectedGate.verdict !== 'clear')
        logger.info('the change touches protected paths', {
          verdict: protectedGate.verdict,
          files: protectedGate.files,
        });
    }
    const result = handOff(
      state,
      { ...input, ...(messages === undefined ? {} : { messages }) },
      {
        limits: settings,
        ...(protectedGate === undefined ? {} : { protectedGate }),
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
