import type Anthropic from '@anthropic-ai/sdk';
import type { ModelClient } from '../agents/ports.ts';

/**
 * The model port over an SDK client's Messages API (`@anthropic-ai/sdk`, or the Bedrock SDK,
 * which serves the same resource): one call, the abort signal passed on, and what the SDK
 * throws after its own retries translated by the provider's `translate`.
 */
export function sdkModelClient(
  client: { messages: Pick<Anthropic['messages'], 'create'> },
  translate: (error: unknown) => Error,
): ModelClient {
  return {
    async createMessage(params, requestOptions = {}) {
      try {
        return await client.messages.create(params, {
          ...(requestOptions.signal ? { signal: requestOptions.signal } : {}),
        });
      } catch (error) {
        throw translate(error);
      }
    },
  };
}
