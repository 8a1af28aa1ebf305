import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DynamoFeedbackStore } from '../../lambdas/feedback/adapters/dynamo-feedback-store.ts';
import { FeedbackExportLine } from '../../lambdas/feedback/model.ts';
import { feedbackExportCommand } from '../../local/feedback-export-command.ts';
import { LOCAL_REGION } from '../../local/template.ts';
import { exportFeedback } from '../../scripts/feedback-export.ts';
import {
  type BugHarness,
  type BugResult,
  bugIdFor,
  CHANNELS,
  DEVELOPER,
  findings,
  findingsPostTs,
  REPORTER,
  startBugHarness,
  turn,
} from './bug-harness.ts';

/**
 * Feedback and the App Home in the sandbox: a press of the findings' feedback buttons stored,
 * replaced by a second press, a thumbs down's reason given in the modal, all exported as JSON
 * lines by `npm run feedback:export`; and a developer's Home tab listing their approval, whose
 * button decides it through the approval path.
 */

let h: BugHarness;
const THIRD = 'U_THIRD';

beforeAll(async () => {
  // Developers may acknowledge escalations here, so the developer's Home has an approval.
  h = await startBugHarness({
    approvals: { acknowledge_escalation: ['developer'] },
    bugInvestigation: {
      sla: { acknowledgeMinutes: { critical: 200, high: 200, medium: 200, low: 200 }, maxReminders: 1 },
    },
  });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

const api = <T>(path: string, body?: unknown): Promise<T> => h.driver.api<T>(path, body);

const feedbackStore = () =>
  new DynamoFeedbackStore({ client: h.sandbox.dynamodb, tableName: h.sandbox.tableName });
const ephemeralsTo = (user: string) => h.sandbox.slack.workspace.ephemerals().filter((e) => e.user === user);
type View = {
  id: string;
  user: string;
  state: string;
  view: { private_metadata?: string; callback_id?: string };
};

describe('feedback on the findings', () => {
  it("stores a press, replaces it with the same person's second, keeps a down-vote's reason, and exports them", async () => {
    const summary = 'Coupon totals round the VAT twice.';
    const report = await h.post(CHANNELS.reports, REPORTER, 'The total is a cent off with a coupon');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, findings(summary)));
    const ts = await findingsPostTs(h, summary);
    const message = h.sandbox.slack.workspace.find(CHANNELS.summaries, ts);
    const block = (message.blocks as { type: string; block_id?: string; elements?: { type: string }[] }[]).at(
      -1,
    );
    expect(block).toMatchObject({ type: 'context_actions', block_id: 'feedback:findings' });
    expect(block?.elements?.[0]?.type).toBe('feedback_buttons');

    await api('/sandbox/slack/feedback', {
      channel: CHANNELS.summaries,
      user: DEVELOPER,
      message_ts: ts,
      vote: 'up',
    });
    const up = await h.eventually(
      () => feedbackStore().list(bug),
      (list) => list.length === 1,
      'the thumbs up to be stored',
    );
    expect(up[0]).toMatchObject({
      conversationId: bug,
      workflow: 'bug_investigation',
      answerKind: 'findings',
      messageTs: ts,
      vote: 'up',
      by: DEVELOPER,
      request: 'The total is a cent off with a coupon',
    });
    expect(up[0]?.answerText).toContain(summary);
    await h.eventually(
      async () => ephemeralsTo(DEVELOPER),
      (l) => l.some((e) => e.text.includes('thumbs up')),
      'the acknowledgement',
    );

    // The same person changes their mind: one feedback of theirs, now a thumbs down, and the form opens.
    await api('/sandbox/slack/feedback', {
      channel: CHANNELS.summaries,
      user: DEVELOPER,
      message_ts: ts,
      vote: 'down',
    });
    const down = await h.eventually(
      () => feedbackStore().list(bug),
      (list) => list.length === 1 && list[0]?.vote === 'down',
      'the thumbs down to replace the thumbs up',
    );
    expect(down).toHaveLength(1);
    const acknowledged = await h.eventually(
      async () => ephemeralsTo(DEVELOPER),
      (l) => l.some((e) => e.text.includes('thumbs down')),
      'the thumbs down acknowledgement',
    );
    const ack = acknowledged.find((e) => e.text.includes('thumbs down'));
    const addReason = JSON.stringify(ack?.blocks ?? []);
    expect(addReason).toContain('feedback_reason_open');

    // The modal opened with the press's trigger id; under a heavy load the three seconds may
    // pass first, and then "Add a reason" opens it with a fresh one, as a person would press it.
    let modal = (await api<{ views: View[] }>(`/sandbox/slack/views?user=${DEVELOPER}`)).views.find(
      (v) => v.state === 'open',
    );
    if (modal === undefined) {
      const button = (
        (ack?.blocks ?? []) as { type: string; elements?: { value?: string; action_id?: string }[] }[]
      ).find((b) => b.type === 'actions')?.elements?.[0];
      await api('/sandbox/slack/ephemeral/action', {
        channel: CHANNELS.summaries,
        user: DEVELOPER,
        action_id: button?.action_id,
        value: button?.value,
      });
      modal = (
        await h.eventually(
          () => api<{ views: View[] }>(`/sandbox/slack/views?user=${DEVELOPER}`),
          (v) => v.views.some((x) => x.state === 'open'),
          'the reason form',
        )
      ).views.find((v) => v.state === 'open');
    }
    expect(modal?.view.callback_id).toBe('feedback_reason');
    const submitted = await h.driver.submitView(modal?.id ?? '', {
      reason: { reason_text: 'The rounding is in the cart, not in checkout.' },
    });
    expect(submitted.ok, await submitted.clone().text()).toBe(true);
    const reasoned = await h.eventually(
      () => feedbackStore().list(bug),
      (list) => list[0]?.reason !== undefined,
      'the reason to be stored',
    );
    expect(reasoned[0]).toMatchObject({
      vote: 'down',
      reason: 'The rounding is in the cart, not in checkout.',
    });

    // Anyone who can see the answer may rate it: a bystander's vote is their own.
    await api('/sandbox/slack/feedback', {
      channel: CHANNELS.summaries,
      user: THIRD,
      message_ts: ts,
      vote: 'up',
    });
    await h.eventually(
      () => feedbackStore().list(bug),
      (list) => list.length === 2,
      "the bystander's vote",
    );

    // The export, in process and as the npm script against the sandbox's DynamoDB.
    const lines: string[] = [];
    await exportFeedback(feedbackStore(), (line) => lines.push(line));
    const mine = lines
      .map((l) => FeedbackExportLine.parse(JSON.parse(l)))
      .filter((l) => l.conversationId === bug);
    expect(mine).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'feedback-export-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const out = join(dir, 'feedback.jsonl');
    // The command the sandbox prints at start, run as printed (its `--out` here in a temporary
    // directory). `npm run feedback:export` is `tsx scripts/feedback-export.ts`: Node with tsx's
    // loader, one process (npx and tsx's own command line would add two).
    const printed = feedbackExportCommand(h.sandbox).split(' ');
    const assignments = printed.filter((word) => /^[A-Z_]+=/.test(word));
    const args = printed
      .slice(printed.indexOf('--') + 1)
      .map((word) => (word === 'feedback.jsonl' ? out : word));
    expect(assignments.map((word) => word.split('=')[0])).toEqual([
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
    ]);
    const { TABLE_NAME: _unset, ...inherited } = process.env;
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/feedback-export.ts', '--since', '2020-01-01T00:00:00Z', ...args],
      {
        env: {
          ...inherited,
          ...Object.fromEntries(
            assignments.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
          ),
        },
      },
    );
    const exported = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.conversationId === bug);
    const developers = exported.find((l) => l.by === DEVELOPER);
    expect(developers).toEqual({
      kind: 'feedback',
      workflow: 'bug_investigation',
      conversationId: bug,
      answer: { kind: 'findings', ts, text: expect.stringContaining(summary) },
      request: 'The total is a cent off with a coupon',
      vote: 'down',
      reason: 'The rounding is in the cart, not in checkout.',
      by: DEVELOPER,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const future = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/feedback-export.ts', '--since', '2999-01-01'],
      {
        env: {
          ...process.env,
          TABLE_NAME: h.sandbox.tableName,
          AWS_ENDPOINT_URL_DYNAMODB: h.sandbox.url,
          AWS_REGION: LOCAL_REGION,
          AWS_ACCESS_KEY_ID: 'sandbox',
          AWS_SECRET_ACCESS_KEY: 'sandbox',
        },
      },
    );
    expect(future.stdout).toBe('');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });
});

const escalation = (summary: string): BugResult => ({
  action: 'escalate',
  summary,
  confidence: 30,
  severity: 'low',
});

type HomeView = {
  id: string;
  view: {
    blocks: {
      type: string;
      block_id?: string;
      text?: { text: string };
      elements?: { action_id: string; value: string; text: { text: string } }[];
    }[];
  };
};

describe("a developer's App Home", () => {
  it('lists the approval waiting for them, and its button decides it through the approval path', async () => {
    const report = await h.post(CHANNELS.reports, REPORTER, 'Invoices are emailed twice');
    const bug = bugIdFor(report);
    h.script(bug, turn(bug, escalation('Invoice mailer runs twice per schedule.')));
    await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => c?.approvals?.acknowledge_escalation?.messageTs !== undefined,
      'the approval to be open',
    );

    await api('/sandbox/slack/home/open', { user: DEVELOPER });
    const home = await h.eventually(
      () => api<HomeView>(`/sandbox/slack/home?user=${DEVELOPER}`).catch(() => undefined),
      (v) => JSON.stringify(v ?? {}).includes('Invoice mailer'),
      "the developer's Home tab",
    );
    const text = JSON.stringify(home?.view.blocks);
    expect(text).toContain('Waiting for you');
    expect(text).toContain('/investigate');
    // Cost is for admins only: not a developer's.
    expect(text).not.toContain('Model cost today');
    const actions = home?.view.blocks.find(
      (b) => b.type === 'actions' && b.block_id?.startsWith('home_approval:'),
    );
    const button = actions?.elements?.[0];
    expect(button?.text.text).toBe('Acknowledge');

    await api('/sandbox/slack/home/action', {
      user: DEVELOPER,
      block_id: actions?.block_id,
      action_id: button?.action_id,
      value: button?.value,
    });
    const decided = await h.eventually(
      () => h.store.getConversation(bug, { consistent: true }),
      (c) => (c?.decisions ?? []).length === 1,
      'the decision from the Home tab',
    );
    expect(decided?.decisions?.[0]).toMatchObject({
      kind: 'acknowledge_escalation',
      decision: 'acknowledge',
      by: DEVELOPER,
    });

    // The Home is published again after the decision, with nothing waiting; on call, an admin,
    // sees today's cost.
    await h.eventually(
      () => api<HomeView>(`/sandbox/slack/home?user=${DEVELOPER}`),
      (v) => JSON.stringify(v.view.blocks).includes('No approval is waiting for you'),
      'the Home without the approval',
    );
    await api('/sandbox/slack/home/open', { user: 'U_ONCALL' });
    const oncall = await h.eventually(
      () => api<HomeView>('/sandbox/slack/home?user=U_ONCALL').catch(() => undefined),
      (v) => v !== undefined,
      "on call's Home",
    );
    expect(JSON.stringify(oncall?.view.blocks)).toContain('Model cost today');
    await h.post(CHANNELS.reports, REPORTER, 'never mind', report);
  });
});
