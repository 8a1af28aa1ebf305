import type { MessageParam, ModelClient } from '../../agents/ports.ts';
import { PEOPLE_DATA_HEADER, PEOPLE_TEXT_RULES, personLine } from '../../kernel/people-text.ts';
import type { BotTurn, ChannelMessage } from './model.ts';

/** What the agent gets: the conversation's recorded channel messages and its own earlier turns. */
export interface AnswerInput {
  channel: string;
  messages: readonly ChannelMessage[];
  turns: readonly BotTurn[];
  message: { userId: string; text: string };
}

/** Produces the bot's reply text. */
export type Answerer = (input: AnswerInput) => Promise<string>;

const SYSTEM = `You are a helpful assistant taking part in a Slack channel conversation.
Several people may talk to you; answer the latest message briefly, using the channel context
and what you said before. Reply with the message text only.

${PEOPLE_TEXT_RULES}`;

/** A channel message as people-text.ts renders it: everyone in a channel is a member; the bot is itself. */
export function channelLine(message: { userId: string; text: string; isBot?: boolean; ts?: string }): string {
  return personLine({
    senderType: message.isBot === true ? 'bot' : 'member',
    senderId: message.userId,
    text: message.text,
    ts: message.ts,
  });
}

/** The model's input: earlier turns as the history, the channel transcript as context. */
export function answerRequestMessages(input: AnswerInput): MessageParam[] {
  const history: MessageParam[] = input.turns.flatMap((turn): MessageParam[] => [
    { role: 'user', content: channelLine({ userId: turn.userId, text: turn.question, ts: turn.ts }) },
    { role: 'assistant', content: turn.answer },
  ]);
  const before = input.messages.filter((m) => m.fromHistory === true).map(channelLine);
  const during = input.messages.filter((m) => m.fromHistory !== true).map(channelLine);
  const earlier =
    before.length > 0 ? `Earlier in the channel, before you were addressed:\n${before.join('\n')}\n\n` : '';
  return [
    ...history,
    {
      role: 'user',
      content: `${PEOPLE_DATA_HEADER}\n\n${earlier}Channel messages in this conversation so far:\n${during.join('\n')}\n\nAnswer this message:\n${channelLine(input.message)}`,
    },
  ];
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  return content
    .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('')
    .trim();
}

/** A responder on the ModelClient port (no tools, one call). */
export function createModelAnswerer(model: ModelClient, modelId: string, maxTokens = 1024): Answerer {
  return async (input) => {
    const reply = await model.createMessage({
      model: modelId,
      max_tokens: maxTokens,
      system: SYSTEM,
      messages: answerRequestMessages(input),
    });
    return textOf(reply.content);
  };
}

/** The judge on the ModelClient port: one short call with the judge model. */
export function createModelJudge(model: ModelClient, modelId: string) {
  return async (prompt: string): Promise<string> => {
    const reply = await model.createMessage({
      model: modelId,
      max_tokens: 5,
      messages: [{ role: 'user', content: prompt }],
    });
    return textOf(reply.content);
  };
}
