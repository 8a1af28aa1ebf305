import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUG } from '../../local/github/demo-webshop.ts';
import { fakeStreams } from '../../local/slack/streams.ts';
import { toolUse } from '../support/scripted-model.ts';
import {
  type IssueHarness,
  PIPELINE_CHANNEL,
  pipelineIdFor,
  startIssueHarness,
  submitAs,
} from './issue-harness.ts';

/**
 * Live progress of a GitHub-started issue pipeline in the sandbox: no person in Slack can
 * receive a stream, so the turn's progress is one message updated in place in the pipeline's
 * thread, with the pipeline's stages and a task per code tool call the model made.
 */

let h: IssueHarness;
beforeAll(async () => {
  h = await startIssueHarness({}, { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } });
});
afterAll(async () => {
  await h?.stop();
  expect(h?.modelFailures ?? []).toEqual([]);
});

describe('live progress of an issue pipeline', () => {
  it("shows the triage's code reads under the pipeline's stages in one message updated in place", async () => {
    const issue = await h.openIssue('Redesign the whole shop', 'Make it nicer.');
    const id = pipelineIdFor(issue);
    h.script(id, [
      toolUse('search_code', { pattern: 'vat' }),
      toolUse('read_file', { path: DEMO_BUG.file, start_line: 40, end_line: 50 }),
      submitAs('submit_triage', {
        type: 'BUG_FIX',
        scope: 'SMALL',
        complexity: 'simple',
        should_proceed: false,
        rejection_reason: 'This needs a product decision, not a code change.',
      }),
    ]);
    await h.waitFor(
      () => h.store.getConversation(id, { consistent: true }),
      (c) => c?.status === 'closed',
      'the pipeline to stop',
    );
    const conversation = await h.store.getConversation(id);
    const thread = Object.values(conversation?.anchors ?? {}).find((a) => a.channel === PIPELINE_CHANNEL);
    expect(thread).toBeDefined();
    expect(fakeStreams(h.sandbox.slack.workspace)).toEqual([]);

    const bots = (await h.messages(PIPELINE_CHANNEL, thread?.threadTs)).filter((m) => m.bot);
    const progress = bots.filter((m) => m.text.startsWith('Working on it'));
    expect(progress).toHaveLength(1);
    const shown = JSON.stringify((progress[0] as { blocks?: unknown[] }).blocks);
    // The last request carries every call of the turn.
    const made = (h.requestsOf(id).at(-1)?.body.messages ?? [])
      .flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_use' && !b.name.startsWith('submit_'));
    expect(made.map((b) => (b.type === 'tool_use' ? b.name : ''))).toEqual(['search_code', 'read_file']);
    expect(shown).toContain('Searching code for \\"vat\\"');
    expect(shown).toContain(`Reading ${DEMO_BUG.file}:40-50`);
    expect(shown).toContain('*Fixing the issue*');
    // The triage turn is done: its stage too.
    expect(shown).toContain(':white_check_mark: Triage');
    expect(shown).toContain(':white_circle: Analysis');
    // The turn is over: no Stop button, and the closing line.
    expect(shown).not.toContain('stop_turn');
    expect(shown).toContain('Done: 2 steps');
  });
});
