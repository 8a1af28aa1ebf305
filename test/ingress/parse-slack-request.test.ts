import { describe, expect, it } from 'vitest';
import { parseSlackRequest } from '../../lambdas/ingress/parse-slack-request.ts';
import {
  BOT_USER_ID,
  FORM_TYPE,
  JSON_TYPE,
  messageEvent,
  NOW_SECONDS,
  slashCommand,
} from './slack-requests.ts';

function parse(body: string, contentType: string | undefined = JSON_TYPE) {
  return parseSlackRequest({
    body,
    contentType,
    requestTimestamp: String(NOW_SECONDS),
    receivedAt: '2025-01-01T00:00:00.000Z',
    botUserId: BOT_USER_ID,
  });
}

describe('parseSlackRequest', () => {
  it('counts a labelled mention of the bot as a mention', () => {
    const parsed = parse(messageEvent({ text: `<@${BOT_USER_ID}|helper> look` }));

    expect(parsed).toMatchObject({ type: 'enqueue', envelope: { mentionsBot: true } });
  });

  it('does not count a mention of someone else', () => {
    const parsed = parse(messageEvent({ text: '<@U0002> look' }));

    expect(parsed).toMatchObject({ type: 'enqueue', envelope: { mentionsBot: false } });
  });

  it('takes the team from the event when the envelope has none', () => {
    const parsed = parse(messageEvent({ team: 'T0009' }, { team_id: undefined }));

    expect(parsed).toMatchObject({ type: 'enqueue', envelope: { teamId: 'T0009' } });
  });

  it('reads a file-only post without text as an empty message', () => {
    const parsed = parse(messageEvent({ subtype: 'file_share', text: undefined, files: [{ id: 'F1' }] }));

    expect(parsed).toMatchObject({ type: 'enqueue', envelope: { text: '' } });
  });

  it('reports the path of a missing field, not the content around it', () => {
    const parsed = parse(messageEvent({ channel: undefined, text: 'confidential roadmap' }));

    expect(parsed.type).toBe('invalid');
    expect(parsed.type === 'invalid' && parsed.reason).toContain('channel');
    expect(parsed.type === 'invalid' && parsed.reason).not.toContain('confidential');
  });
});

describe('the ts of a slash command', () => {
  /** The ts the ingress gives a slash command signed at `requestTimestamp` with `triggerId`. */
  function syntheticTs(requestTimestamp: string, triggerId: string) {
    const parsed = parseSlackRequest({
      body: slashCommand({ trigger_id: triggerId }),
      contentType: FORM_TYPE,
      requestTimestamp,
      receivedAt: '2025-01-01T00:00:00.000Z',
      botUserId: BOT_USER_ID,
    });
    if (parsed.type !== 'enqueue') throw new Error(`the slash command was not enqueued: ${parsed.type}`);
    return parsed.envelope.ts;
  }

  it('is the request second plus six digits fixed by the trigger id', () => {
    const ts = syntheticTs('1735689600', 'trigger-1');

    expect(ts).toMatch(/^1735689600\.\d{6}$/);
    expect(syntheticTs('1735689600', 'trigger-1')).toBe(ts);
    expect(syntheticTs('1735689600', 'trigger-2')).not.toBe(ts);
  });
});
