import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBody } from '../../local/read-body.ts';
import { DEMO_TELEMETRY_CONFIG } from '../../local/telemetry/demo-services.ts';
import { NOW, startTelemetryHarness, type TelemetryHarness } from './telemetry-harness.ts';

/**
 * Datadog and PagerDuty behind the telemetry tools, enabled by configuration, against local
 * HTTP servers that check each request as the real APIs would (path, method, authentication
 * headers, query and body) and answer in the APIs' documented shapes.
 */

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const keys = {
  apiKey: randomBytes(16).toString('hex'),
  appKey: randomBytes(20).toString('hex'),
  pdToken: randomBytes(10).toString('hex'),
};
const seen: Seen[] = [];
let api: Server;
let h: TelemetryHarness;

function answer(req: IncomingMessage, url: URL, body: string): { status: number; json: unknown } {
  if (url.pathname.startsWith('/dd/')) {
    if (req.headers['dd-api-key'] !== keys.apiKey || req.headers['dd-application-key'] !== keys.appKey)
      return { status: 403, json: { errors: ['Forbidden'] } };
    if (req.method === 'POST' && url.pathname === '/dd/api/v2/logs/events/search') {
      const request = JSON.parse(body) as { page: { cursor?: string } };
      const at = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
      if (request.page.cursor === undefined)
        return {
          status: 200,
          json: {
            data: [
              {
                id: 'a',
                type: 'log',
                attributes: {
                  timestamp: at(30),
                  message: 'provider request timed out after 2000ms',
                  service: 'payment-api',
                  status: 'error',
                  host: 'i-1',
                },
              },
              {
                id: 'b',
                type: 'log',
                attributes: {
                  timestamp: at(29),
                  message: 'provider request timed out after 2000ms',
                  service: 'payment-api',
                  status: 'error',
                  host: 'i-2',
                },
              },
            ],
            meta: { page: { after: 'cursor-2' } },
          },
        };
      return {
        status: 200,
        json: {
          data: [
            {
              id: 'c',
              type: 'log',
              attributes: {
                timestamp: at(10),
                message: 'charge authorized in 120ms',
                service: 'payment-api',
                status: 'info',
              },
            },
          ],
          meta: { page: {} },
        },
      };
    }
    if (req.method === 'GET' && url.pathname === '/dd/api/v1/query')
      return {
        status: 200,
        json: {
          status: 'ok',
          series: [
            {
              metric: 'trace.http.request.duration',
              pointlist: Array.from({ length: 30 }, (_, i) => [
                NOW - (30 - i) * 60_000,
                i < 20 ? 0.2 : i === 25 ? null : 4.5,
              ]),
            },
          ],
        },
      };
  }
  if (url.pathname.startsWith('/pd/')) {
    if (
      req.headers.authorization !== `Token token=${keys.pdToken}` ||
      req.headers.accept !== 'application/vnd.pagerduty+json;version=2'
    )
      return { status: 401, json: { error: { message: 'Unauthorized' } } };
    if (url.pathname === '/pd/incidents/Q1ABC2DEF3')
      return {
        status: 200,
        json: {
          incident: {
            id: 'Q1ABC2DEF3',
            title: 'checkout latency p99 > 3s',
            status: 'acknowledged',
            urgency: 'high',
            created_at: '2015-11-23T21:15:00Z',
            html_url: 'https://example.pagerduty.com/incidents/Q1ABC2DEF3',
            service: { summary: 'checkout' },
          },
        },
      };
    if (url.pathname === '/pd/incidents/Q1ABC2DEF3/log_entries')
      return {
        status: 200,
        json: {
          log_entries: [
            {
              type: 'acknowledge_log_entry',
              created_at: '2015-11-23T21:18:00Z',
              summary: 'Acknowledged by Ada',
            },
            {
              type: 'trigger_log_entry',
              created_at: '2015-11-23T21:15:00Z',
              summary: 'Triggered through the API',
            },
          ],
        },
      };
    return { status: 404, json: { error: { message: 'Incident Not Found', code: 2100 } } };
  }
  return { status: 404, json: {} };
}

beforeAll(async () => {
  api = createServer(
    (req, res) =>
      void readBody(req).then((body) => {
        const url = new URL(req.url ?? '/', 'http://local');
        seen.push({
          method: req.method ?? '',
          path: `${url.pathname}${url.search}`,
          headers: req.headers,
          body,
        });
        const { status, json } = answer(req, url, body);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      }),
  );
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  h = await startTelemetryHarness({
    config: {
      ...DEMO_TELEMETRY_CONFIG,
      services: DEMO_TELEMETRY_CONFIG.services.map((s) =>
        s.name === 'payment-api'
          ? { ...s, datadog: { service: 'payment-api', metrics: ['trace.http.request.duration'] } }
          : s,
      ),
      sources: {
        datadog: { enabled: true, baseUrl: `${base}/dd` },
        pagerduty: { enabled: true, baseUrl: `${base}/pd` },
      },
    },
    env: { DATADOG_API_KEY: keys.apiKey, DATADOG_APP_KEY: keys.appKey, PAGERDUTY_API_TOKEN: keys.pdToken },
  });
});

afterAll(async () => {
  await h.close();
  api.closeAllConnections();
  await new Promise<void>((resolve) => api.close(() => resolve()));
});

describe('Datadog behind query_logs and query_metrics', () => {
  it('searches the service’s logs with both keys, following the cursor, and analyzes them', async () => {
    seen.length = 0;
    const result = await h.call(
      'query_logs',
      { service: 'payment-api', source: 'datadog', filterPattern: 'status:error', lastMinutes: 60 },
      { conversationId: 'dd-1' },
    );
    expect(result.ok).toBe(true);
    const requests = seen.filter((r) => r.path === '/dd/api/v2/logs/events/search');
    expect(requests).toHaveLength(2);
    const bodies = requests.map((r) => JSON.parse(r.body));
    expect(bodies[0]).toEqual({
      filter: {
        query: 'service:payment-api status:error',
        from: new Date(NOW - 3_600_000).toISOString(),
        to: new Date(NOW).toISOString(),
      },
      sort: 'timestamp',
      page: { limit: 1000 },
    });
    expect(bodies[1].page.cursor).toBe('cursor-2');
    expect(requests[0]?.headers['content-type']).toBe('application/json');
    if (!result.ok) return;
    expect(result.output).toMatch(/^Evidence ev-1 \(query_logs, datadog:service:payment-api, /);
    expect(result.output).toContain('3 events from datadog');
    expect(result.output).toMatch(/2x[^\n]*provider request timed out after <\*>ms/);
  });

  it('queries a metric with the rolled-up aggregation over the window, skipping null points', async () => {
    seen.length = 0;
    const result = await h.call(
      'query_metrics',
      { service: 'payment-api', source: 'datadog', lastMinutes: 30 },
      { conversationId: 'dd-2' },
    );
    const request = seen.find((r) => r.path.startsWith('/dd/api/v1/query'));
    const params = new URL(request?.path ?? '/', 'http://local').searchParams;
    expect(request?.method).toBe('GET');
    expect(params.get('query')).toBe('avg:trace.http.request.duration{service:payment-api}.rollup(avg, 60)');
    expect(params.get('from')).toBe(String((NOW - 1_800_000) / 1000));
    expect(params.get('to')).toBe(String(NOW / 1000));
    expect(result).toMatchObject({
      ok: true,
      output: expect.stringMatching(
        /trace\.http\.request\.duration: 29 points, min 0\.2, mean [\d.]+, max 4\.5/,
      ),
    });
  });

  it('fails the call (not the model’s doing) when Datadog refuses the keys', async () => {
    const bad = await startTelemetryHarness({
      config: {
        ...DEMO_TELEMETRY_CONFIG,
        sources: {
          datadog: { enabled: true, baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}/dd` },
        },
      },
      env: { DATADOG_API_KEY: 'wrong', DATADOG_APP_KEY: 'wrong' },
    });
    try {
      await expect(bad.call('query_logs', { service: 'checkout', source: 'datadog' })).rejects.toMatchObject({
        name: 'TelemetrySourceError',
        message: expect.stringContaining('datadog: HTTP 403'),
      });
    } finally {
      await bad.close();
    }
  });
});

describe('PagerDuty behind get_incident', () => {
  it('reads the incident and its log entries with the API token, oldest entry first', async () => {
    seen.length = 0;
    const result = await h.call(
      'get_incident',
      { incidentId: 'Q1ABC2DEF3' },
      { conversationId: 'pd-1', scope: 'triage' },
    );
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /pd/incidents/Q1ABC2DEF3',
      'GET /pd/incidents/Q1ABC2DEF3/log_entries?limit=25&is_overview=true',
    ]);
    expect(result).toEqual({
      ok: true,
      output: [
        'Evidence ev-1 (get_incident, pagerduty:incident; scope triage). Cite it as ev-1. Queries used in scope triage: 1 of 5.',
        '',
        'PagerDuty incident Q1ABC2DEF3: checkout latency p99 > 3s',
        'status acknowledged, urgency high, service checkout, created 2015-11-23T21:15:00Z, https://example.pagerduty.com/incidents/Q1ABC2DEF3',
        'Log entries:',
        '- 2015-11-23T21:15:00Z trigger: Triggered through the API',
        '- 2015-11-23T21:18:00Z acknowledge: Acknowledged by Ada',
      ].join('\n'),
    });
  });

  it('answers an unknown incident as a rejected query the model can correct', async () => {
    const result = await h.call('get_incident', { incidentId: 'QNOPE00000' }, { conversationId: 'pd-2' });
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^The source rejected the query: pagerduty: HTTP 404: .*Incident Not Found/,
      ),
    });
  });
});
