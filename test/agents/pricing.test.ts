import { describe, expect, it } from 'vitest';
import { InvalidModelPriceError } from '../../lambdas/agents/errors.ts';
import {
  costOfCall,
  DEFAULT_MODEL_PRICES,
  type ModelPrice,
  microUsd,
  priceOf,
  requirePriceOf,
  utcDay,
} from '../../lambdas/agents/pricing.ts';
import { formatUsd } from '../../lambdas/shared/money.ts';

const SONNET: ModelPrice = {
  inputPerMillion: 3,
  outputPerMillion: 15,
  cacheWritePerMillion: 3.75,
  cacheReadPerMillion: 0.3,
};

describe('model prices', () => {
  it('prices each kind of token at its own rate, taking cache writes out of the input count', () => {
    // 1,000 uncached + 2,000 written to the cache (input counts both), 500 out, 10,000 read.
    const cost = costOfCall(
      { inputTokens: 3_000, cacheWriteTokens: 2_000, outputTokens: 500, cacheReadTokens: 10_000 },
      SONNET,
    );

    expect(cost).toBe(1_000 * 3 + 2_000 * 3.75 + 500 * 15 + 10_000 * 0.3);
  });

  it('rounds a call to the micro-dollar', () => {
    expect(costOfCall({ inputTokens: 1 }, { ...SONNET, inputPerMillion: 0.1 })).toBe(0);
    expect(costOfCall({ inputTokens: 7 }, { ...SONNET, inputPerMillion: 0.1 })).toBe(1);
  });

  it('bills every token of a request over the long-prompt threshold at the long-prompt band', () => {
    const haiku = DEFAULT_MODEL_PRICES['claude-haiku-5-5'];
    if (haiku === undefined) throw new Error('Haiku 5.5 has a default price');

    const short = costOfCall({ inputTokens: 100_000, outputTokens: 1_000 }, haiku);
    const long = costOfCall({ inputTokens: 90_000, cacheReadTokens: 20_000, outputTokens: 1_000 }, haiku);

    expect(short).toBe(Math.round(100_000 * 0.1 + 1_000 * 0.5));
    expect(long).toBe(Math.round(90_000 * 0.5 + 20_000 * 0.05 + 1_000 * 2.5));
  });

  it('finds a Bedrock inference profile, a Bedrock model id and a dated id under the listed model', () => {
    // A price configured under the listed id only, found for an id it is the listed id of.
    const underListed = (modelId: string, listed: string) => {
      const price = { ...SONNET };
      expect(priceOf(modelId, { [listed]: price })).toBe(price);
    };
    underListed('global.anthropic.claude-sonnet-5-5', 'claude-sonnet-5-5');
    underListed('anthropic.claude-opus-4-1-20250805-v1:0', 'claude-opus-4-1');
    underListed('claude-haiku-4-5-20251001', 'claude-haiku-4-5');
    expect(priceOf('us.anthropic.claude-haiku-4-5')).toEqual(DEFAULT_MODEL_PRICES['claude-haiku-4-5']);
  });

  it('prefers the configured price, by the id as given, over the default', () => {
    const bedrock = { ...SONNET, inputPerMillion: 2.2 };

    expect(priceOf('eu.anthropic.claude-sonnet-5-5', { 'eu.anthropic.claude-sonnet-5-5': bedrock })).toBe(
      bedrock,
    );
    expect(priceOf('eu.anthropic.claude-sonnet-5-5', { 'claude-sonnet-5-5': bedrock })).toBe(bedrock);
    expect(priceOf('claude-sonnet-5-5')).toEqual(DEFAULT_MODEL_PRICES['claude-sonnet-5-5']);
  });

  it('has a default price for every model id the stack configures by default', () => {
    expect(priceOf('claude-sonnet-5-5')).toBeDefined();
    expect(priceOf('global.anthropic.claude-sonnet-5-5')).toBeDefined();
    expect(priceOf('claude-haiku-4-5')).toBeDefined();
  });

  it('refuses a model without a price, saying how to configure one', () => {
    expect(priceOf('claude-unknown-9')).toBeUndefined();
    expect(() => requirePriceOf('claude-unknown-9')).toThrow(InvalidModelPriceError);
    expect(() => requirePriceOf('claude-unknown-9')).toThrow(/modelPrices.*"claude-unknown-9"/);
  });

  it('formats money as people read it', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(500_000)).toBe('$0.50');
    expect(formatUsd(42)).toBe('< $0.0001');
    expect(formatUsd(12_345)).toBe('$0.0123');
    expect(formatUsd(microUsd(1234.5))).toBe('$1,234.50');
  });

  it('keys a day by its UTC date', () => {
    expect(utcDay(new Date('2015-11-23T23:59:59.999-02:00'))).toBe('2015-11-24');
  });
});
