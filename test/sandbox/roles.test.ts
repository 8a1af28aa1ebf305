import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BugHarness, bugIdFor, CHANNELS, REPORTER, startBugHarness } from './bug-harness.ts';

/**
 * Roles from configuration in the sandbox, with the offline demo model (which resolves a bug
 * with a pretend fix when a [Developer] asks for a PR): the default `slackAgents.people` name
 * the fake workspace's groups, S_DEVELOPERS (U_DEV, U_DEV2) and S_ONCALL (U_ONCALL), which
 * the Router reads with usergroups.users.list. U_THIRD is in neither.
 */

let h: BugHarness;
beforeAll(async () => {
  h = await startBugHarness({}, { model: 'demo' });
});
afterAll(async () => {
  await h?.stop();
});

const REPORT =
  'On Safari 17 the checkout page shows HTTP 500 after I click Pay, version 2.3.1, steps: add item, pay';

/** The summary thread the findings of `bugId` opened (the conversation's `summary` anchor). */
async function findingsThread(bugId: string): Promise<string> {
  const conversation = await h.eventually(
    () => h.store.getConversation(bugId, { consistent: true }),
    (c) => Object.values(c?.anchors ?? {}).some((anchor) => anchor.name === 'summary'),
    'the findings thread',
  );
  const summary = Object.values(conversation?.anchors ?? {}).find((anchor) => anchor.name === 'summary');
  if (!summary) throw new Error('no summary anchor');
  return summary.threadTs;
}

async function storedRoleOf(bugId: string, user: string): Promise<string | undefined> {
  const messages = await h.eventually(
    () => h.store.listMessages(bugId),
    (list) => list.some((m) => m.senderId === user),
    `a stored message from ${user}`,
  );
  return messages.find((m) => m.senderId === user)?.senderType;
}

describe('roles from configuration, in the sandbox', () => {
  it("hears a non-developer's fix request in the findings thread as context only, and a developer's as a request", async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, REPORT);
    const bug = bugIdFor(report);
    const thread = await findingsThread(bug);
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.phase === 'awaiting_dev',
      'the wait for developers',
    );

    const findingsPosts = async () =>
      (await h.messages(CHANNELS.summaries, thread)).filter(
        (m) => m.bot && m.text.startsWith('Bug findings'),
      );
    const before = (await findingsPosts()).length;
    await h.post(CHANNELS.summaries, 'U_THIRD', 'please open a PR for this', thread);
    expect(await storedRoleOf(bug, 'U_THIRD')).toBe('participant');
    // The demo model was told a participant asked: it posts updated findings, no fix.
    await h.eventually(
      findingsPosts,
      (posts) => posts.length > before,
      'updated findings after the participant',
    );
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.phase === 'awaiting_dev',
      'the wait for developers again',
    );
    expect((await h.store.getConversation(bug, { consistent: true }))?.status).not.toBe('resolved');

    await h.post(CHANNELS.summaries, 'U_DEV2', 'please open a PR for this', thread);
    expect(await storedRoleOf(bug, 'U_DEV2')).toBe('developer');
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.status === 'resolved',
      "the developer's fix request resolving the bug",
    );
  });

  it('labels the on-call engineer on call in the escalation and findings threads', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, `${REPORT} (again)`);
    const bug = bugIdFor(report);
    const thread = await findingsThread(bug);

    await h.post(CHANNELS.summaries, 'U_ONCALL', 'I am looking at it', thread);
    expect(await storedRoleOf(bug, 'U_ONCALL')).toBe('on_call');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });
});
