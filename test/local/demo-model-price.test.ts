import { describe, expect, it } from 'vitest';
import { sessionModelEnv } from '../../eval/session.ts';
import { costOfCall, modelPriceFrom } from '../../lambdas/agents/pricing.ts';
import { ENV } from '../../lambdas/shared/env.ts';
import { demoModelEnv } from '../../local/sandbox-models.ts';

describe("the sandbox's offline demo model", () => {
  it('is priced at $0, so its turns cost nothing in the ledger and the day', () => {
    const env = demoModelEnv('http://127.0.0.1:3000');
    const price = modelPriceFrom(env[ENV.modelPrice]);
    expect(price).toBeDefined();
    if (!price) return;
    const usage = {
      inputTokens: 120_000,
      outputTokens: 4_000,
      cacheReadTokens: 50_000,
      cacheWriteTokens: 9_000,
    };
    expect(costOfCall(usage, price)).toBe(0);
    expect(env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:3000/demo-model');
  });

  it("is priced the same in the eval harness's demo runs as in the sandbox's console", () => {
    const sandboxPrice = demoModelEnv('http://127.0.0.1:3000')[ENV.modelPrice];
    expect(sessionModelEnv('demo', 'http://127.0.0.1:9', undefined)[ENV.modelPrice]).toBe(sandboxPrice);
    // A real model (live, or a recording of one replayed) keeps the configured model's price.
    expect(sessionModelEnv('live', 'http://127.0.0.1:9', 'key')).not.toHaveProperty(ENV.modelPrice);
    expect(sessionModelEnv('replay', 'http://127.0.0.1:9', undefined)).not.toHaveProperty(ENV.modelPrice);
  });
});
