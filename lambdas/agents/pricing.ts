import * as z from 'zod';
import type { Ledger } from '../kernel/model.ts';
import { microUsd } from '../shared/money.ts';
import { InvalidModelPriceError, InvalidModelPriceSettingError } from './errors.ts';

/**
 * What model calls cost in money. Prices are USD per million tokens, the way
 * Anthropic and AWS publish them. A call's cost is computed when it is made, with the price of
 * the model that served it, and kept in the ledger as whole micro-dollars (`costMicroUsd`), so
 * DynamoDB's atomic ADD keeps exact sums and a later price change does not rewrite history.
 * Rounding each call to a micro-dollar is off by at most half a micro-dollar per call.
 */

const PerMillion = z.number().nonnegative().max(10_000);

/** One price band: USD per million tokens of each kind. */
export const PriceBand = z.strictObject({
  /** Uncached input tokens. */
  inputPerMillion: PerMillion,
  /** Output tokens. */
  outputPerMillion: PerMillion,
  /** Tokens written to the prompt cache (the 5-minute cache, which agent turns use). */
  cacheWritePerMillion: PerMillion,
  /** Tokens read from the prompt cache (cache hits). */
  cacheReadPerMillion: PerMillion,
});
export type PriceBand = z.infer<typeof PriceBand>;

/**
 * A model's price: one band, and optionally a dearer band for requests whose prompt (input,
 * cache writes and cache reads together) is over `aboveTokens`, which then applies to every
 * token of that request, output included (how Haiku 5.5 is billed).
 */
export const ModelPrice = PriceBand.extend({
  longPrompt: PriceBand.extend({ aboveTokens: z.number().int().positive() }).optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;
export type ModelPriceInput = z.input<typeof ModelPrice>;

/** The configuration's price table: model id -> price, over the defaults below. */
export const ModelPrices = z.record(z.string().min(1), ModelPrice);
export type ModelPrices = z.infer<typeof ModelPrices>;

const band = (input: number, output: number, cacheWrite: number, cacheRead: number): PriceBand => ({
  inputPerMillion: input,
  outputPerMillion: output,
  cacheWritePerMillion: cacheWrite,
  cacheReadPerMillion: cacheRead,
});

/**
 * List prices of the Claude API (USD per million tokens: input, output, 5-minute cache write,
 * cache read), from the model overview and pricing pages of the Claude developer platform
 * (platform.claude.com/docs, "Models & pricing"), as read on 2026-11-23. Amazon Bedrock bills
 * the same models at its own rates (regional endpoints cost more than global ones): set
 * `modelPrices` for the id you configure when they differ. Reported elsewhere but not on the
 * pages read: a cut of Sonnet 5.5's cache reads to $0.10 (2026-10-07); the higher figure is
 * kept, since a ceiling should err on the side of stopping early.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-5-5': band(4, 20, 5, 0.2),
  'claude-sonnet-5-5': band(2, 10, 2.5, 0.2),
  'claude-haiku-5-5': {
    ...band(0.1, 0.5, 0.125, 0.01),
    longPrompt: { aboveTokens: 100_000, ...band(0.5, 2.5, 0.625, 0.05) },
  },
  'claude-opus-5': band(5, 25, 6.25, 0.5),
  'claude-sonnet-5': band(2, 10, 2.5, 0.2),
  'claude-opus-4-8': band(5, 25, 6.25, 0.5),
  'claude-opus-4-7': band(5, 25, 6.25, 0.5),
  'claude-opus-4-6': band(5, 25, 6.25, 0.5),
  'claude-opus-4-5': band(5, 25, 6.25, 0.5),
  'claude-opus-4-1': band(15, 75, 18.75, 1.5),
  'claude-sonnet-4-6': band(3, 15, 3.75, 0.3),
  'claude-sonnet-4-5': band(3, 15, 3.75, 0.3),
  'claude-haiku-4-5': band(1, 5, 1.25, 0.1),
};

/**
 * The price of a model that costs nothing: the sandbox's offline demo model, whose turns are
 * shown and counted at $0 (its tokens are still counted).
 */
export const FREE_MODEL_PRICE: ModelPrice = {
  inputPerMillion: 0,
  outputPerMillion: 0,
  cacheWritePerMillion: 0,
  cacheReadPerMillion: 0,
};

/**
 * The id a model is listed under: a Bedrock model id or inference profile id
 * (`global.anthropic.claude-sonnet-5-5`, `anthropic.claude-opus-4-1-20250805-v1:0`) loses its
 * geography, its `anthropic.` prefix, its version (`-v1:0`) and its snapshot date, as does a
 * dated Claude API id (`claude-haiku-4-5-20251001`).
 */
function listedModelId(modelId: string): string {
  return modelId
    .replace(/^(?:[a-z]+(?:-[a-z]+)?\.)?anthropic\./, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/-\d{8}$/, '');
}

/**
 * The price of `modelId`: the configured table's entry for the id as given, then for its
 * listed id, then the default for its listed id; undefined when none has one.
 */
export function priceOf(modelId: string, configured: ModelPrices = {}): ModelPrice | undefined {
  const listed = listedModelId(modelId);
  return configured[modelId] ?? configured[listed] ?? DEFAULT_MODEL_PRICES[listed];
}

/** The price of `modelId`, or a configuration error saying how to give one. */
export function requirePriceOf(modelId: string, configured: ModelPrices = {}): ModelPrice {
  const price = priceOf(modelId, configured);
  if (price === undefined) throw new InvalidModelPriceError(modelId);
  return price;
}

/** Token counts of one model call, as the ledger keeps them (`usageOf` in model-reply.ts). */
export type CallUsage = Pick<
  Partial<Ledger>,
  'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'
>;

/**
 * What one call cost, in whole micro-dollars. `inputTokens` counts cache writes too (the
 * ledger's convention), so they are taken out of it and priced as writes.
 */
export function costOfCall(usage: CallUsage, price: ModelPrice): number {
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const input = Math.max(0, (usage.inputTokens ?? 0) - cacheWrite);
  const output = usage.outputTokens ?? 0;
  const prompt = input + cacheWrite + cacheRead;
  const rates = price.longPrompt && prompt > price.longPrompt.aboveTokens ? price.longPrompt : price;
  // USD per million tokens is micro-dollars per token.
  const micro =
    input * rates.inputPerMillion +
    output * rates.outputPerMillion +
    cacheWrite * rates.cacheWritePerMillion +
    cacheRead * rates.cacheReadPerMillion;
  return Math.round(micro);
}

/** Reads `MODEL_PRICE` (JSON `ModelPrice`); absent means unpriced. */
export function modelPriceFrom(raw: string | undefined): ModelPrice | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return ModelPrice.parse(JSON.parse(raw));
  } catch (cause) {
    throw new InvalidModelPriceSettingError({ cause });
  }
}

export { microUsd };

/** The UTC day of an instant (`2026-11-23`): the daily ceiling's key. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
