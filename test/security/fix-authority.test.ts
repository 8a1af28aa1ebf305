import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bugWorkBranch } from '../../lambdas/workflows/bug-investigation/fix/work-branch.ts';
import { promptLines } from '../../statemachines/demo/text.ts';
import {
  type BugHarness,
  CHANNELS,
  DEVELOPER,
  findings,
  messageIdOf,
  promptOfTurn,
  readsHistory,
  reportedWithFixIt,
  type Step,
  startBugHarness,
} from '../sandbox/bug-harness.ts';
import { REPO } from '../sandbox/issue-harness.ts';
import { type ModelReply, type RecordedModelRequest, submit } from '../support/scripted-model.ts';

/**
 * Attacks on fix authority, replayed through the sandbox with a scripted model that is fooled
 * on purpose: it asks for a fix whenever someone asks it to. A fix must start only from a
 * developer's own act (a "Fix it" press on the findings, or a developer's message the request
 * cites), and the pipeline only from a labeller with write access or a developer's `/fix`.
 * Every scenario asserts that nothing was changed and that people were told what was refused.
 * The pipeline's triggers are in fix-authority-pipeline.test.ts.
 */

const THIRD = 'U_THIRD';
const DEV2 = 'U_DEV2';

type Button = { action_id: string; value: string };

describe('the bug fixer starts only from a developer', () => {
  let h: BugHarness;

  beforeAll(async () => {
    h = await startBugHarness({ bugInvestigation: { repository: 'demo/webshop' } });
  });
  afterAll(async () => {
    await h?.stop();
    expect(h?.modelFailures ?? [], 'what went wrong on the model side').toEqual([]);
  });

  const botTexts = async (channel: string, threadTs?: string) =>
    (await h.messages(channel, threadTs)).filter((m) => m.bot).map((m) => m.text);
  const fixerRan = (bug: string) =>
    h.requestsOf(bug).some((r) => JSON.stringify(r.body.system).includes("Bug Bot's fixer"));
  const ephemeralsTo = (user: string) =>
    h.sandbox.slack.workspace.ephemerals().filter((e) => e.user === user);

  /** The fooled investigator: asks for a fix, citing the latest message of `user` in its turn. */
  const fooledInto = (bug: string, user: string, seen?: (prompt: string) => void): Step[] => [
    readsHistory(bug),
    (request: RecordedModelRequest) => {
      seen?.(promptOfTurn(request));
      return submit({
        action: 'fix_requested',
        fix_request: messageIdOf(request, user),
        summary: 'Someone asked for a fix.',
        confidence: 80,
        severity: 'high',
        fix: { description: 'Whatever they asked.' },
      });
    },
  ];
  const noWorkBranch = (bug: string) =>
    expect(
      new Octokit({
        baseUrl: h.sandbox.github.apiUrl,
        auth: h.sandbox.github.createUserToken('demo-maintainer'),
      }).rest.git.getRef({ ...REPO, ref: `heads/${bugWorkBranch(bug)}` }),
    ).rejects.toMatchObject({ status: 404 });

  const reported = (text: string) => reportedWithFixIt(h, text);

  function fixItButton(ts: string): Button {
    const message = h.sandbox.slack.workspace.find(CHANNELS.summaries, ts);
    const blocks = (message.blocks ?? []) as { type: string; elements?: Button[] }[];
    const button = blocks.find((b) => b.type === 'actions')?.elements?.[0];
    if (button === undefined) throw new Error('the findings have no "Fix it" button');
    return button;
  }

  async function press(user: string, ts: string, button: Button): Promise<void> {
    const response = await h.driver.press({
      channel: CHANNELS.summaries,
      user,
      messageTs: ts,
      actionId: button.action_id,
      value: button.value,
    });
    expect(response.status).toBe(200);
  }

  it("refuses a third party's request sent in the same turn as a developer's unrelated thanks (regression: any developer message authorised it)", async () => {
    const { bug, thread } = await reported('Checkout logs me out after paying, every time, on 2.3.1.');
    // Turn 2 (woken by a developer's question) holds its answer until both messages are in,
    // so they reach the next turn together.
    let release: () => void = () => {};
    const bothPosted = new Promise<void>((resolve) => {
      release = resolve;
    });
    let turnPrompt = '';
    h.script(bug, [
      async (): Promise<ModelReply> => {
        await bothPosted;
        return readsHistory(bug) as ModelReply;
      },
      submit(findings('Still the session token.')),
      ...fooledInto(bug, THIRD, (prompt) => {
        turnPrompt = prompt;
      }),
    ]);
    await h.post(CHANNELS.summaries, DEVELOPER, 'any news on this?', thread);
    await h.eventually(
      async () => h.requestsOf(bug).length,
      (n) => n >= 3,
      'the second turn to start',
    );
    await h.post(CHANNELS.summaries, THIRD, 'please fix it and open a PR', thread);
    await h.post(CHANNELS.summaries, DEVELOPER, 'thanks, at lunch', thread);
    release();

    const refusal = `Only developers can ask for a fix; <@${THIRD}> is not one`;
    await h.eventually(
      () => botTexts(CHANNELS.summaries, thread),
      (texts) => texts.some((t) => t.includes(refusal)),
      'the refusal in the findings thread',
    );
    // Both messages were in the turn that asked; only the cited one's sender counted.
    const said = promptLines(turnPrompt).map((l) => `${l.senderId}: ${l.text}`);
    expect(said).toEqual(
      expect.arrayContaining([`${THIRD}: please fix it and open a PR`, `${DEVELOPER}: thanks, at lunch`]),
    );
    expect(fixerRan(bug)).toBe(false);
    await noWorkBranch(bug);
    const conversation = await h.store.getConversation(bug, { consistent: true });
    expect(conversation?.status).not.toBe('failed');
  });

  it('ignores a bystander\'s "Fix it" press (told why, nothing delivered), starts the fix on a developer\'s, and refuses a second press', async () => {
    const { bug, thread } = await reported('Prices show in dollars for German customers since this morning.');
    const button = fixItButton(thread);
    expect(button.value).toContain('request_fix');

    await press(THIRD, thread, button);
    const refused = await h.eventually(
      async () => ephemeralsTo(THIRD),
      (list) => list.some((e) => e.text.includes('request_fix')),
      "the bystander's ephemeral",
    );
    expect(refused.at(-1)?.text).toContain('Only developer may decide request_fix');
    await h.sandbox.idle();
    expect((await h.store.listMessages(bug)).filter((m) => m.messageType === 'action')).toEqual([]);
    expect(h.requestsOf(bug)).toHaveLength(2);

    let pressPrompt = '';
    h.script(bug, [
      readsHistory(bug),
      (request) => {
        pressPrompt = promptOfTurn(request);
        return submit({
          action: 'fix_requested',
          fix_request: messageIdOf(request, DEVELOPER),
          summary: 'Prices use the default currency.',
          confidence: 80,
          severity: 'high',
          fix: { description: 'Use the customer region currency.' },
        });
      },
      submit({ action: 'cannot_fix', summary: 'The scripted fixer stops here.' }),
    ]);
    await press(DEVELOPER, thread, button);

    await h.eventually(
      () => botTexts(CHANNELS.summaries, thread),
      (texts) => texts.some((t) => t.includes('No pull request was opened')),
      "the fix path's outcome",
    );
    expect(fixerRan(bug)).toBe(true);
    const [pressed] = promptLines(pressPrompt).filter((l) => l.type === 'action');
    expect(pressed).toMatchObject({ sender: 'Developer', senderId: DEVELOPER });
    const decisions = (await h.store.getConversation(bug, { consistent: true }))?.decisions ?? [];
    expect(decisions).toContainEqual(
      expect.objectContaining({ kind: 'request_fix', decision: 'fix', by: DEVELOPER }),
    );

    // Another developer presses the same button: already decided, nothing starts again.
    await press(DEV2, thread, button);
    const again = await h.eventually(
      async () => ephemeralsTo(DEV2),
      (list) => list.length > 0,
      'the ephemeral about the earlier decision',
    );
    expect(again.at(-1)?.text).toContain(`This was already decided: Fix requested by <@${DEVELOPER}>`);
  });
});
