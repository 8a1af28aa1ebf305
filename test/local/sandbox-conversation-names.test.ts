import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ChannelMessage } from '../../lambdas/workflows/channel-conversations/model.ts';
import { CHANNEL_CONVERSATIONS_MODULE } from '../../statemachines/channel-conversations.ts';

/**
 * A channel conversation is named by the message that started it, never by an earlier,
 * unrelated message the conversation read from the channel's history.
 */

const message = (over: Partial<ChannelMessage> & { ts: string; text: string }): ChannelMessage => ({
  userId: 'U_RITA',
  isBot: false,
  at: '2001-01-01T10:00:00.000Z',
  ...over,
});

const ID = 'channel-C_GENERAL-200-000001';
/** The console's name of the conversation started at 200.000001, from its messages' items. */
function channelOpening(
  messages: readonly ChannelMessage[],
  _startTs: '200.000001',
): { text: string } | undefined {
  const records = CHANNEL_CONVERSATIONS_MODULE.sandboxRecords?.({
    client: new DynamoDBClient({ region: 'us-east-1' }),
    tableName: 'conversations',
  });
  const items = messages.map((m) => ({ pk: `CHANCONV#${ID}`, sk: `MSG#${m.ts}`, ...m }));
  const [view] = records?.list(items, new Date('2001-01-01T10:05:00.000Z')) ?? [];
  expect(view?.id).toBe(ID);
  return view?.opening === undefined ? undefined : { text: view.opening };
}

describe('the name of a channel conversation', () => {
  it('is the message that started it, not an earlier one from the channel history', () => {
    const messages = [
      message({ ts: '100.000001', text: 'lunch at noon anyone?', fromHistory: true }),
      message({ ts: '200.000001', text: '@bot how do I rotate the API key?' }),
      message({ ts: '201.000001', text: 'Like this…', isBot: true }),
    ];
    expect(channelOpening(messages, '200.000001')?.text).toBe('@bot how do I rotate the API key?');
  });

  it("is the first person's message of the conversation when the starting one is not kept", () => {
    const messages = [
      message({ ts: '100.000001', text: 'lunch at noon anyone?', fromHistory: true }),
      message({ ts: '300.000001', text: 'and the staging key?' }),
      message({ ts: '250.000001', text: 'thanks, and where is it stored?' }),
    ];
    expect(channelOpening(messages, '200.000001')?.text).toBe('thanks, and where is it stored?');
  });

  it('is nothing when only history and the bot wrote', () => {
    const messages = [
      message({ ts: '100.000001', text: 'lunch?', fromHistory: true }),
      message({ ts: '201.000001', text: 'Hi', isBot: true }),
    ];
    expect(channelOpening(messages, '200.000001')).toBeUndefined();
  });
});
