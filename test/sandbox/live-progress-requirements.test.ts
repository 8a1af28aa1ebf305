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
 * turn's stream is a sign of life without tasks, addressed to the requester, stopped before
 * the questions follow.
 */

describe('live progress of a requirements interview', () => {
  const h = useHarness({}, { env: { LIVE_PROGRESS: 'on' } });

  it('streams a sign of life without tasks for a clarifier turn, then the questions follow', async () => {
    // Slack knows every member; the fake workspace learns a user from a first post.
    await h.post(PRODUCT, REQUESTER, 'hello');
    const id = await slashPrd(h, 'trigger-progress', 'I want to build an AI project manager');
    h.script(id, [assess({ confidence: 50, questions: ['Who are the users?'] })]);
    const thread = await threadOf(h, id);
    await posted(h, thread, 'Confidence: 50%');

    const streams = fakeStreams(h.sandbox.slack.workspace).filter((s) => s.threadTs === thread);
    expect(streams).toHaveLength(1);
    expect(streams[0]?.state).toBe('completed');
    expect(streams[0]?.tasks).toEqual([]);
    const startCall = h.sandbox.slack.workspace.apiCalls('chat.startStream')[0];
    expect(startCall?.args.recipient_user_id).toBe(REQUESTER);
    const bots = (await h.messages(PRODUCT, thread)).filter((m) => m.bot);
    const timeline = bots.findIndex((m) => m.ts === streams[0]?.ts);
    const questions = bots.findIndex((m) => m.text.includes('Confidence: 50%'));
    expect(bots[timeline]?.text).toContain('Done: 0 steps');
    expect(questions).toBeGreaterThan(timeline);
  });
});
