import { describe, expect, it } from 'vitest';
import {
  type IncomingMessage,
  shouldRespond,
  shouldStartConversation,
} from '../../lambdas/workflows/channel-conversations/decider.ts';
import {
  type ChannelConversation,
  DEFAULT_CHANNEL_SETTINGS,
} from '../../lambdas/workflows/channel-conversations/model.ts';

const NOW = new Date('2015-11-22T10:00:00.000Z');
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();

function message(text: string, overrides: Partial<IncomingMessage> = {}): IncomingMessage {
  return { userId: 'U_ALICE', text, mentionsBot: false, repliesToBot: false, ...overrides };
}

function conversation(botSpokeSecondsAgo?: number): ChannelConversation {
  return {
    channel: 'C_GENERAL',
    conversationId: 'channel-C_GENERAL-1',
    startedAt: secondsAgo(100),
    lastActivity: secondsAgo(5),
    ...(botSpokeSecondsAgo !== undefined ? { botSpokeAt: secondsAgo(botSpokeSecondsAgo) } : {}),
    participants: { U_ALICE: true },
  };
}

const withJudge = (judge: (prompt: string) => Promise<string>, errors: unknown[] = []) => ({
  settings: { ...DEFAULT_CHANNEL_SETTINGS, useLlmJudge: true },
  judge,
  onJudgeError: (error: unknown) => errors.push(error),
});
const plain = { settings: DEFAULT_CHANNEL_SETTINGS };

describe('should start a conversation', () => {
  it('starts on a mention of the bot', () => {
    expect(shouldStartConversation(message('hi <@BOT>', { mentionsBot: true }))).toEqual({
      decision: true,
      reason: 'explicit_trigger',
    });
  });

  it("starts on a reply in the bot's thread", () => {
    expect(shouldStartConversation(message('thanks', { repliesToBot: true })).reason).toBe(
      'explicit_trigger',
    );
  });

  it('does not start on an ordinary message', () => {
    expect(shouldStartConversation(message('lunch?'))).toEqual({ decision: false, reason: 'no_trigger' });
  });
});

describe('should respond', () => {
  it('always answers an explicit trigger, even long after the bot spoke', async () => {
    const decision = await shouldRespond(
      message('<@BOT> more', { mentionsBot: true }),
      conversation(),
      [],
      NOW,
      plain,
    );
    expect(decision).toEqual({ decision: true, reason: 'explicit_trigger' });
  });

  it('answers a short question within the follow-up window', async () => {
    const decision = await shouldRespond(message('and the limit?'), conversation(30), [], NOW, plain);
    expect(decision).toEqual({ decision: true, reason: 'recent_followup' });
  });

  it('answers a message opening with a continuation word within the window', async () => {
    const decision = await shouldRespond(
      message('but that breaks the nightly export job we run for finance every single day'),
      conversation(10),
      [],
      NOW,
      plain,
    );
    expect(decision.reason).toBe('recent_followup');
  });

  it('does not take a follow-up once the window has passed', async () => {
    const decision = await shouldRespond(message('and the limit?'), conversation(61), [], NOW, plain);
    expect(decision).toEqual({ decision: false, reason: 'no_trigger' });
  });

  it('honours a configured follow-up window', async () => {
    const decision = await shouldRespond(message('why?'), conversation(61), [], NOW, {
      settings: { ...DEFAULT_CHANNEL_SETTINGS, followupWindowSeconds: 90 },
    });
    expect(decision.reason).toBe('recent_followup');
  });

  it('does not answer a statement with the judge off', async () => {
    const decision = await shouldRespond(message('I will grab coffee'), conversation(10), [], NOW, plain);
    expect(decision).toEqual({ decision: false, reason: 'no_trigger' });
  });

  it('answers when the judge says YES', async () => {
    const prompts: string[] = [];
    const decision = await shouldRespond(
      message('the deploy is still red'),
      conversation(),
      [{ ts: '1.1', userId: 'U_BOB', text: 'deploy failed', isBot: false, at: secondsAgo(20) }],
      NOW,
      withJudge(async (prompt) => {
        prompts.push(prompt);
        return ' yes\n';
      }),
    );
    expect(decision).toEqual({ decision: true, reason: 'llm_judge' });
    expect(prompts[0]).toContain('{"from":"U_BOB","role":"member","verified":true,"text":"deploy failed"');
    expect(prompts[0]).toContain(
      'New message:\n{"from":"U_ALICE","role":"member","verified":true,"text":"the deploy is still red"}',
    );
  });

  it('does not answer when the judge says NO', async () => {
    const decision = await shouldRespond(
      message('see you at lunch'),
      conversation(),
      [],
      NOW,
      withJudge(async () => 'NO'),
    );
    expect(decision).toEqual({ decision: false, reason: 'llm_judge' });
  });

  it('does not ask the judge about a message addressed to someone else (a side conversation)', async () => {
    const prompts: string[] = [];
    const decision = await shouldRespond(
      message('<@U_BOB> can you review my PR?'),
      conversation(),
      [],
      NOW,
      withJudge(async (prompt) => {
        prompts.push(prompt);
        return 'YES';
      }),
    );
    expect(decision).toEqual({ decision: false, reason: 'addressed_elsewhere' });
    expect(prompts).toEqual([]);
  });

  it('leaves a short question addressed to someone else alone, even right after the bot spoke', async () => {
    const decision = await shouldRespond(
      message('<@U_BOB> can you review my PR?'),
      conversation(30),
      [],
      NOW,
      plain,
    );
    expect(decision).toEqual({ decision: false, reason: 'addressed_elsewhere' });
  });

  it('does not answer, and reports the error, when the judge fails', async () => {
    const errors: unknown[] = [];
    const decision = await shouldRespond(
      message('hmm'),
      conversation(),
      [],
      NOW,
      withJudge(async () => {
        throw new Error('model unavailable');
      }, errors),
    );
    expect(decision).toEqual({ decision: false, reason: 'llm_judge_failed' });
    expect(errors).toHaveLength(1);
  });
});

describe('looks like a follow-up', () => {
  /** Whether `text`, written just after the bot spoke, with the judge off, is answered as a follow-up. */
  const looksLikeFollowup = async (text: string) => {
    const decision = await shouldRespond(message(text), conversation(10), [], NOW, plain);
    expect(decision).toEqual(
      decision.decision
        ? { decision: true, reason: 'recent_followup' }
        : { decision: false, reason: 'no_trigger' },
    );
    return decision.decision;
  };

  it('takes a short question', async () => expect(await looksLikeFollowup('Really?')).toBe(true));
  it('rejects a long question', async () =>
    expect(
      await looksLikeFollowup(
        'could you tell me every single thing you know about the release process today?',
      ),
    ).toBe(false));
  it('takes a continuation word', async () =>
    expect(await looksLikeFollowup('What about staging')).toBe(true));
  it('rejects a plain statement', async () => expect(await looksLikeFollowup('ok thanks')).toBe(false));
});

describe('the judge prompt', () => {
  it('shows at most the last ten messages and marks the bot', async () => {
    const recent = Array.from({ length: 12 }, (_, i) => ({
      ts: `${i}.0`,
      userId: i === 11 ? 'U_BOT' : 'U_BOB',
      text: `m${i}`,
      isBot: i === 11,
      at: NOW.toISOString(),
    }));
    const prompts: string[] = [];
    await shouldRespond(
      message('x'),
      conversation(),
      recent,
      NOW,
      withJudge(async (prompt) => {
        prompts.push(prompt);
        return 'NO';
      }),
    );
    expect(prompts).toHaveLength(1);
    const [prompt] = prompts;
    expect(prompt).not.toContain('"text":"m1"');
    expect(prompt).toContain('{"from":"U_BOB","role":"member","verified":true,"text":"m2"');
    expect(prompt).toContain('{"from":"U_BOT","role":"bot","verified":true,"text":"m11"');
  });
});
