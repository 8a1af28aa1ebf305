import { describe, expect, it } from 'vitest';
import { NOW, output, telemetryHarnessForFile } from './telemetry-harness.ts';

/**
 * What the telemetry tools refuse, over the demo incident: a query too broad (no service, an
 * unknown one, an empty or too wide window), and the sixth query of a hypothesis's scope in a
 * round, concurrent ones too. The tools' answers are in telemetry-tools.test.ts.
 */
const h = telemetryHarnessForFile();

describe('too broad queries', () => {
  it('refuses a query that names no service, with the services to choose from', async () => {
    const result = await h.call('query_logs', { filterPattern: 'ERROR' }, { conversationId: 'broad-1' });
    expect(result).toEqual({
      ok: false,
      error:
        'Refused (too_broad): too broad: a query must name one service (checkout, payment-api, session-cache)',
    });
  });

  it('narrows a window wider than the maximum to its latest part and says so', async () => {
    const text = output(
      await h.call(
        'query_metrics',
        { service: 'checkout', lastMinutes: 24 * 60, metrics: ['Errors'] },
        { conversationId: 'broad-2' },
      ),
    );
    expect(text).toContain(
      'Note: narrowed: the window asked for is 1440 minutes, wider than the maximum of 360',
    );
    expect(text).toContain(`${new Date(NOW - 360 * 60_000).toISOString()} .. ${new Date(NOW).toISOString()}`);
  });

  it('refuses an unknown service and a window that ends before it starts', async () => {
    expect(await h.call('query_logs', { service: 'billing' }, { conversationId: 'broad-3' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Refused \(unknown_service\)/),
    });
    expect(
      await h.call(
        'query_logs',
        { service: 'checkout', since: '2015-11-23T21:00:00Z', until: '2015-11-23T20:00:00Z' },
        { conversationId: 'broad-3' },
      ),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Refused \(invalid_query\): the window is empty/),
    });
  });

  it('does not count refused queries against the scope', async () => {
    for (let i = 0; i < 6; i++)
      await h.call('query_logs', {}, { conversationId: 'broad-4', scope: 'round-1:h1' });
    const result = await h.call('service_map', {}, { conversationId: 'broad-4', scope: 'round-1:h1' });
    expect(output(result)).toMatch(/^Evidence ev-1 /);
    expect(
      output(
        await h.call(
          'recent_deployments',
          { service: 'checkout', lastMinutes: 180 },
          { conversationId: 'broad-4', scope: 'round-1:h1' },
        ),
      ),
    ).toContain('Queries used in scope round-1:h1: 1 of 5.');
  });
});

describe('the per-scope query budget', () => {
  it('refuses the sixth query of a hypothesis in a round, with the reason', async () => {
    const scope = 'round-2:h3';
    for (let i = 1; i <= 5; i++) {
      const text = output(
        await h.call(
          'query_metrics',
          { service: 'session-cache', metrics: ['HitRate'] },
          { conversationId: 'budget-1', scope },
        ),
      );
      expect(text).toContain(`Queries used in scope ${scope}: ${i} of 5.`);
    }
    const sixth = await h.call(
      'query_logs',
      { service: 'session-cache' },
      { conversationId: 'budget-1', scope },
    );
    expect(sixth).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^Refused \(scope_budget\): the query budget of scope round-2:h3 is spent \(5 queries/,
      ),
    });
  });

  it('counts each scope and each conversation on its own', async () => {
    const errors = (conversationId: string, scope: string) =>
      h.call('query_metrics', { service: 'checkout', metrics: ['Errors'] }, { conversationId, scope });
    for (let i = 0; i < 5; i++) await errors('budget-2', 'round-1:h1');
    expect((await errors('budget-2', 'round-1:h2')).ok).toBe(true);
    expect((await errors('budget-3', 'round-1:h1')).ok).toBe(true);
  });

  it('holds the limit when a round’s parallel iterations query at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        h.call(
          'query_metrics',
          { service: 'checkout', metrics: ['Requests'] },
          { conversationId: 'budget-4', scope: 'round-1:h4' },
        ),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    // Each got its own evidence id, and the ledger holds exactly those.
    const ids = results.flatMap((r) => (r.ok ? [/^Evidence (ev-\d+)/.exec(r.output)?.[1]] : []));
    expect(new Set(ids).size).toBe(5);
    expect((await h.deps.ledger.listEvidence('budget-4')).map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(results.filter((r) => !r.ok && r.error.startsWith('Refused (scope_budget)'))).toHaveLength(7);
  });

  it('does not count the service map, which reads configuration', async () => {
    for (let i = 0; i < 7; i++)
      expect((await h.call('service_map', {}, { conversationId: 'budget-5', scope: 'round-1:h1' })).ok).toBe(
        true,
      );
  });
});
