import { describe, expect, it } from 'vitest';
import { fakeStreams } from '../../local/slack/streams.ts';
import {
  assess,
  PRODUCT,
  posted,
  REQUESTER,
  slashPrd,
  threadOf,
  useHarness,
} from './requirements-harness.ts';

/**
 * Live progress of a requirements interview in the sandbox: its agents call no tools, so a
 * turn shows no timeline at all (no "Working on it... Done: 0 steps"): only the questions.
 */

describe('live progress of a requirements interview', () => {
  const h = useHarness({}, { env: { LIVE_PROGRESS: 'on', LIVE_PROGRESS_AFTER_MS: '0' } });

  it('shows no timeline for a clarifier turn without tool calls: only the questions', async () => {
    // Slack knows every member; the fake workspace learns a user from a first post.
    await h.post(PRODUCT, REQUESTER, 'hello');
    const id = await slashPrd(h, 'trigger-progress', 'I want to build an AI project manager');
    h.script(id, [assess({ confidence: 50, questions: ['Who are the users?'] })]);
    const thread = await threadOf(h, id);
    await posted(h, thread, 'Confidence: 50%');

    expect(fakeStreams(h.sandbox.slack.workspace).filter((s) => s.threadTs === thread)).toEqual([]);
    const bots = (await h.messages(PRODUCT, thread)).filter((m) => m.bot);
    expect(bots.some((m) => m.text.includes('Working on it') || m.text.includes('Done: 0 steps'))).toBe(
      false,
    );
    expect(bots.some((m) => m.text.includes('Confidence: 50%'))).toBe(true);
  });
});
