import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../log-analysis/estimate-tokens.ts';
import { NOW, output, telemetryHarnessForFile } from './telemetry-harness.ts';

/**
 * The telemetry tools over the demo incident, through the real SDK clients and the emulators:
 * what query_logs, query_metrics, recent_deployments and service_map answer, and the evidence
 * ledger they write. What they refuse (too broad queries, the per-scope query budget) is in
 * telemetry-query-limits.test.ts.
 */
const h = telemetryHarnessForFile();

const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe('query_logs', () => {
  it('shows the provider timeouts as an error pattern starting after the deploy, within the output budget', async () => {
    const text = output(
      await h.call(
        'query_logs',
        { service: 'payment-api', filterPattern: '"timed out"', lastMinutes: 90 },
        { conversationId: 'logs-1' },
      ),
    );
    const demo = h.telemetry.demo;
    expect(text).toMatch(/^Evidence ev-1 \(query_logs, cloudwatch-logs:\/ecs\/payment-api, /);
    expect(text).toMatch(
      /Error patterns[^\n]*\n- \d+x [^\n]*provider request timed out after <\*>ms op=charge provider=acmepay/,
    );
    const firstSeen = /error (\S+)\.\.\S+ \[payment-api\] provider request timed out/.exec(text)?.[1];
    expect(Date.parse(firstSeen ?? '')).toBeGreaterThan(demo?.deployAt ?? Number.POSITIVE_INFINITY);
    // The budget covers the tool's text; the evidence header comes on top of it.
    const body = text.slice(text.indexOf('\n\n') + 2);
    expect(estimateTokens(body)).toBeLessThanOrEqual(1500);
  });

  it('shows at most maxExamples raw lines, error-like ones first', async () => {
    const text = output(
      await h.call('query_logs', { service: 'checkout', lastMinutes: 30 }, { conversationId: 'logs-2' }),
    );
    const examples = text.split('Example lines')[1] ?? '';
    const lines = examples.split('\n').filter((l) => l.startsWith('- 2015'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(5);
    expect(lines.some((l) => l.includes('"level":"error"'))).toBe(true);
    // Raw lines appear nowhere else: the rest is the analysis.
    expect(text.split('\n').filter((l) => l.includes('{"time"')).length).toBe(lines.length);
  });

  // Regression: with the detector's default hour of baseline, a 30-minute query counted the half
  // hour before its start as silence and reported the steady timeout rate as a +330% spike.
  it('reports no spike for a rate that is steady over the whole window', async () => {
    const text = output(
      await h.call('query_logs', { service: 'payment-api', lastMinutes: 30 }, { conversationId: 'logs-6' }),
    );
    expect(text).toContain('provider request timed out after <*>ms');
    expect(text).not.toMatch(/\] spike /);
  });

  it('analyzes the latest events, every one from a point to the end, when more matched than the cap', async () => {
    const text = output(
      await h.call(
        'query_logs',
        { service: 'checkout', lastMinutes: 120, maxEvents: 100 },
        { conversationId: 'logs-3' },
      ),
    );
    expect(text).toContain(
      `More than 100 events from cloudwatch-logs, ${new Date(NOW - 7_200_000).toISOString()} .. ${new Date(NOW).toISOString()}. That is more than the cap: the analysis covers the latest `,
    );
    // The window halved from its end until it fits: its start is the end minus 120 min / 2^k.
    const cut = /the latest (\d+), every event from (\S+) to the end/.exec(text);
    const from = Date.parse(cut?.[2] ?? '');
    expect([1, 2, 3, 4, 5, 6].map((k) => NOW - 7_200_000 / 2 ** k)).toContain(from);
    const analyzed = /(\d+) log lines, \d+ templates, services: checkout, from (\S+) to/.exec(text);
    expect(Number(analyzed?.[1])).toBe(Number(cut?.[1]));
    expect(Number(analyzed?.[1])).toBeLessThanOrEqual(100);
    expect(Date.parse(analyzed?.[2] ?? '')).toBeGreaterThanOrEqual(from);
    // Every event from there on was read: as many as CloudWatch holds in that part of the window.
    const all = output(
      await h.call(
        'query_logs',
        { service: 'checkout', since: new Date(from).toISOString() },
        { conversationId: 'logs-3b' },
      ),
    );
    expect(all).toContain(`${cut?.[1]} events from cloudwatch-logs`);
  });

  it('analyzes the earliest events when even a minute holds more than the cap', async () => {
    const text = output(
      await h.call(
        'query_logs',
        { service: 'payment-api', lastMinutes: 60, maxEvents: 10 },
        { conversationId: 'logs-7' },
      ),
    );
    expect(text).toContain('the analysis covers the earliest 10 of the window');
  });

  it('runs a Logs Insights stats query and shows its rows', async () => {
    const text = output(
      await h.call(
        'query_logs',
        {
          service: 'checkout',
          insightsQuery: 'filter level = "error" | stats count(*) as errors by bin(30m) | sort errors desc',
          lastMinutes: 120,
        },
        { conversationId: 'logs-4' },
      ),
    );
    expect(text).toMatch(/Logs Insights: \d+ rows/);
    expect(text).toMatch(/- bin\(30m\)=2015-11-23 21:30:00\.000, errors=\d+/);
  });

  it('answers the source’s rejection of a malformed Insights query as a result the model can correct', async () => {
    const result = await h.call(
      'query_logs',
      { service: 'checkout', insightsQuery: 'dedup @message' },
      { conversationId: 'logs-5' },
    );
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^The source rejected the query: .*MalformedQueryException: unsupported command dedup/,
      ),
    });
  });
});

describe('the evidence ledger', () => {
  it('gives every result the next evidence id of the conversation and stores what was asked where', async () => {
    const first = output(
      await h.call('service_map', { service: 'checkout' }, { conversationId: 'ledger-1' }),
    );
    const second = output(
      await h.call(
        'query_metrics',
        { service: 'payment-api', metrics: ['ProviderTimeouts'], stat: 'Sum', lastMinutes: 120 },
        { conversationId: 'ledger-1', scope: 'round-1:h2' },
      ),
    );
    const elsewhere = output(await h.call('service_map', {}, { conversationId: 'ledger-2' }));
    expect(first).toMatch(/^Evidence ev-1 /);
    expect(second).toMatch(/^Evidence ev-2 /);
    expect(elsewhere).toMatch(/^Evidence ev-1 /);

    const records = await h.deps.ledger.listEvidence('ledger-1');
    expect(records.map((r) => r.id)).toEqual(['ev-1', 'ev-2']);
    expect(records[0]).toMatchObject({
      tool: 'service_map',
      source: 'config:service-map',
      query: 'checkout',
      scope: 'unscoped',
    });
    expect(records[0]?.timeRange).toBeUndefined();
    expect(records[1]).toMatchObject({
      tool: 'query_metrics',
      source: 'cloudwatch-metrics:Demo/Services',
      query: 'ProviderTimeouts Sum 120s {"Service":"payment-api"}',
      scope: 'round-1:h2',
      timeRange: { start: new Date(NOW - 120 * 60_000).toISOString(), end: new Date(NOW).toISOString() },
      at: new Date(NOW).toISOString(),
    });
    expect(records[1]?.summary).toMatch(/ProviderTimeouts max \d+ at .*; shift at /);
  });

  it('records nothing for a refused or invalid call', async () => {
    await h.call('query_logs', {}, { conversationId: 'ledger-3' });
    await h.call('query_logs', { service: 'checkout', bogus: true }, { conversationId: 'ledger-3' });
    expect(await h.deps.ledger.listEvidence('ledger-3')).toEqual([]);
  });
});

describe('query_metrics, recent_deployments and service_map over the demo incident', () => {
  it('finds payment-api latency shifting up right after the deploy', async () => {
    const text = output(
      await h.call(
        'query_metrics',
        { service: 'payment-api', metrics: ['LatencyMs'], stat: 'p99', periodSeconds: 60, lastMinutes: 120 },
        { conversationId: 'demo-1' },
      ),
    );
    const shift = /Largest level shift at (\S+): mean (\d+) before, (\d+) after/.exec(text);
    expect(shift?.[1]).toBe(`${minute(h.telemetry.demo?.spikeStart ?? 0)}Z`);
    expect(Number(shift?.[3])).toBeGreaterThan(10 * Number(shift?.[2]));
  });

  it('finds no level shift in the session cache’s hit rate during the incident', async () => {
    const text = output(
      await h.call(
        'query_metrics',
        { service: 'session-cache', metrics: ['HitRate'], lastMinutes: 60 },
        { conversationId: 'demo-2' },
      ),
    );
    expect(text).not.toContain('Largest level shift');
  });

  it('lists the payment-api deployment with its new task definition, newest first', async () => {
    const text = output(
      await h.call('recent_deployments', { lastMinutes: 180 }, { conversationId: 'demo-3' }),
    );
    const lines = text.split('\n').filter((l) => l.startsWith('- '));
    expect(lines[0]).toContain(
      `payment-api-prod [payment-api]: UPDATE_COMPLETE, started ${new Date((h.telemetry.demo?.deployAt ?? 0) - 240_000).toISOString()}`,
    );
    expect(text).toContain(`PaymentTaskDefinition -> ${h.telemetry.demo?.taskDefinition} UPDATE_COMPLETE`);
    expect(lines[1]).toContain('checkout-prod [checkout]');
    expect(lines).toHaveLength(2);
  });

  it('maps dependencies both ways', async () => {
    const text = output(
      await h.call('service_map', { service: 'payment-api' }, { conversationId: 'demo-4' }),
    );
    expect(text).toContain('- payment-api: Payment authorization');
    expect(text).toContain('depends on: acmepay (external); depended on by: checkout');
    expect(text).not.toContain('- session-cache');
  });

  it('answers wrong arguments with what is wrong', async () => {
    const result = await h.call(
      'query_metrics',
      { service: 'checkout', stat: 'Median' },
      { conversationId: 'demo-5' },
    );
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Invalid arguments for query_metrics:[\s\S]*stat/),
    });
    const unknown = await h.call(
      'query_metrics',
      { service: 'checkout', metrics: ['CPU'] },
      { conversationId: 'demo-5' },
    );
    expect(unknown).toMatchObject({
      ok: false,
      error: expect.stringContaining('unknown metrics CPU of checkout; known: LatencyMs, Errors, Requests'),
    });
  });

  it('refuses PagerDuty, which this configuration does not enable', async () => {
    expect(await h.call('get_incident', { incidentId: 'Q1ABC2DEF3' }, { conversationId: 'demo-6' })).toEqual({
      ok: false,
      error: 'Refused (source_disabled): the PagerDuty source is not enabled',
    });
  });
});
