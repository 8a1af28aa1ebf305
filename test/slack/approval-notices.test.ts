import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoPostLedger } from '../../lambdas/adapters/dynamo-post-ledger.ts';
import { DynamoConversationStore } from '../../lambdas/adapters/dynamo-store.ts';
import type { DecisionRecord, PlacedApproval } from '../../lambdas/kernel/approvals.ts';
import { createSlackApprovalNotices } from '../../lambdas/slack/approval-notices.ts';
import { SlackApiError } from '../../lambdas/slack/errors.ts';
import { postToSlack } from '../../lambdas/slack/post-to-slack.ts';
import { NO_TEMPLATES } from '../../lambdas/slack/templates/index.ts';
import { createSlackPoster } from '../../lambdas/slack/web-client.ts';
import { listenFakeSlack } from '../../local/slack/api.ts';
import { FakeSlack } from '../../local/slack/fake-slack.ts';
import { bugConversation } from '../support/conversations.ts';
import { startDynalite } from '../support/dynalite.ts';

/** The fake Slack's server, as listenFakeSlack starts it. */
type FakeSlackServer = Awaited<ReturnType<typeof listenFakeSlack>>;

/**
 * What people see of a decision or an expiry, through the real WebClient against the fake
 * Slack, with the thread line posted through SlackPost's ledger (dynalite).
 */

const TOKEN = 'xoxb-approval-notices';
const CHANNEL = 'C_DEVELOPERS';
let slack: FakeSlack;
let server: FakeSlackServer;
let db: Awaited<ReturnType<typeof startDynalite>>;
let store: DynamoConversationStore;
let n = 0;

beforeAll(async () => {
  slack = new FakeSlack({ botToken: TOKEN, channels: [{ id: CHANNEL, name: 'developers' }] });
  server = await listenFakeSlack(slack);
  db = await startDynalite();
  store = new DynamoConversationStore({ client: db.client, tableName: db.tableName });
});
afterAll(async () => {
  await server?.close();
  await db?.close();
});

function notices() {
  const postDeps = {
    store,
    posts: new DynamoPostLedger({ client: db.client, tableName: db.tableName }),
    slack: createSlackPoster({ token: TOKEN, slackApiUrl: server.slackApiUrl, maxRetries: 0 }),
    clock: { now: () => new Date() },
    botUserId: 'U_BOT',
    templates: NO_TEMPLATES,
  };
  return createSlackApprovalNotices({
    token: TOKEN,
    slackApiUrl: server.slackApiUrl,
    maxRetries: 0,
    threadLine: async (line) => {
      await postToSlack(line, postDeps);
    },
  });
}

/** A conversation and its message with buttons, as SlackPost leaves them. */
async function withButtons(): Promise<{ id: string; approval: PlacedApproval; record: DecisionRecord }> {
  n += 1;
  const id = `notices-${n}`;
  await store.createConversation(bugConversation(id));
  const message = slack.postAsBot({
    channel: CHANNEL,
    text: 'Open a pull request with this fix?',
    blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: 'approval_decision', value: 'x' }] }],
  });
  const approval: PlacedApproval = {
    nonce: `nonce-notices-${n}`,
    kind: 'approve_fix',
    choices: ['approve'],
    channel: CHANNEL,
    messageTs: message.ts,
    text: 'Open a pull request with this fix?',
    openedAt: '2015-11-23T10:00:00.000Z',
  };
  const record: DecisionRecord = {
    kind: 'approve_fix',
    decision: 'approve',
    by: 'U_DEV',
    at: '2015-11-23T10:05:00.000Z',
    nonce: approval.nonce,
    pressTs: '1700000300.000001',
    messageTs: message.ts,
  };
  return { id, approval, record };
}

const blocksOf = (ts: string) => JSON.stringify(slack.find(CHANNEL, ts).blocks ?? []);

describe('approval notices in Slack', () => {
  it('replace the buttons with the decision and say it once in the thread, however often they are told', async () => {
    const { id, approval, record } = await withButtons();
    const told = notices();

    await told.decided(id, approval, record);
    await told.decided(id, approval, record);

    expect(blocksOf(approval.messageTs)).not.toContain('"actions"');
    expect(blocksOf(approval.messageTs)).toContain(
      'Approved by <@U_DEV> at <!date^1448273100^{date_short_pretty} {time}|2015-11-23 10:05 UTC>',
    );
    expect(slack.replies(CHANNEL, approval.messageTs).map((m) => m.text)).toEqual([
      ':white_check_mark: Approved by <@U_DEV> at <!date^1448273100^{date_short_pretty} {time}|2015-11-23 10:05 UTC>',
    ]);
    // Kept in the conversation's history like every post of the bot.
    const history = await store.listMessages(id);
    expect(history.filter((m) => m.senderType === 'bot').map((m) => m.text)).toEqual([
      ':white_check_mark: Approved by <@U_DEV> at <!date^1448273100^{date_short_pretty} {time}|2015-11-23 10:05 UTC>',
    ]);
  });

  it('keep every other block of the message: header, fields, summary, links and feedback buttons', async () => {
    const { id, approval, record } = await withButtons();
    const content = [
      { type: 'header', text: { type: 'plain_text', text: 'Bug findings: checkout total' } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*Severity*\nhigh' },
          { type: 'mrkdwn', text: '*Confidence*\n80%' },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: 'The discount is applied twice.' } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: '<https://example.com/console|Console>' }] },
    ];
    const feedback = {
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: 'answer_feedback',
          positive_button: { text: { type: 'plain_text', text: 'Good' }, value: 'up' },
          negative_button: { text: { type: 'plain_text', text: 'Bad' }, value: 'down' },
        },
      ],
    };
    const buttons = {
      type: 'actions',
      block_id: 'approval:approve_fix',
      elements: [{ type: 'button', action_id: 'approval_decision', value: 'x' }],
    };
    slack.updateAsBot({ channel: CHANNEL, ts: approval.messageTs, blocks: [...content, buttons, feedback] });

    await notices().decided(id, approval, record);

    const blocks = slack.find(CHANNEL, approval.messageTs).blocks as Record<string, unknown>[];
    expect(blocks.slice(0, 4)).toEqual(content);
    expect(JSON.stringify(blocks[4])).toContain('Approved by <@U_DEV>');
    expect(blocks[5]).toEqual(feedback);
    expect(blocks).toHaveLength(6);
  });

  it('replace the buttons with "Expired: nobody decided by <time>" when the wait ran out', async () => {
    const { approval } = await withButtons();

    await notices().expired(approval, '2015-11-24T10:00:00.000Z');

    expect(blocksOf(approval.messageTs)).not.toContain('"actions"');
    expect(blocksOf(approval.messageTs)).toContain(
      ':hourglass: Expired: nobody decided by <!date^1448359200^{date_short_pretty} {time}|2015-11-24 10:00 UTC>.',
    );
    expect(slack.find(CHANNEL, approval.messageTs).text).toBe('Open a pull request with this fix?');
  });

  it('report a message Slack cannot find as a Slack refusal, not as Slack being down', async () => {
    const { approval } = await withButtons();

    await expect(notices().expired({ ...approval, messageTs: '1.000000' }, 'x')).rejects.toBeInstanceOf(
      SlackApiError,
    );
  });
});
