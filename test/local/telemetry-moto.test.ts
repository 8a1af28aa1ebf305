import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMoto } from '../../local/moto-server.ts';
import { readBody } from '../../local/read-body.ts';
import { createSandboxTelemetry } from '../../local/sandbox-telemetry.ts';
import { compareObservations, telemetryScenario } from '../../local/telemetry/moto-scenario.ts';

/**
 * The CloudWatch Logs, metrics and CloudFormation emulators against moto_server (Python moto,
 * a second, independent implementation), with the real SDK clients on both sides.
 */
let moto: Awaited<ReturnType<typeof startMoto>>;
let server: Server;
let rows: ReturnType<typeof compareObservations>;

beforeAll(async () => {
  moto = await startMoto();
  const telemetry = createSandboxTelemetry({ demoSeed: false });
  server = createServer(
    (req, res) =>
      void readBody(req).then(async (body) => {
        if (!(await telemetry.serve(req, res, body))) res.writeHead(404).end();
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const now = Date.now();
  const ours = await telemetryScenario(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, now);
  const theirs = await telemetryScenario(moto.endpoint, now);
  rows = compareObservations(ours, theirs);
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  moto?.process.kill();
});

describe('the telemetry emulators against moto_server', () => {
  it('answer FilterLogEvents as moto does: terms, phrases, time bounds, streams, paging, errors', () => {
    const filterRows = rows.filter((r) => r.name.startsWith('FilterLogEvents') && r.note === undefined);
    expect(filterRows.length).toBeGreaterThanOrEqual(12);
    expect(filterRows.filter((r) => r.verdict !== 'same')).toEqual([]);
  });

  it('answer Logs Insights, GetMetricData and DescribeStackEvents as moto does where both implement them', () => {
    const others = rows.filter((r) => !r.name.startsWith('FilterLogEvents') && r.note === undefined);
    expect(others.map((r) => r.name)).toContain('GetMetricData Average values (newest first)');
    expect(others.filter((r) => r.verdict !== 'same')).toEqual([]);
  });

  it('differ only where moto is known to differ, as each noted row says', () => {
    const differing = rows.filter((r) => r.verdict !== 'same').map((r) => r.name);
    expect(differing).toEqual([
      'FilterLogEvents ?term OR',
      'FilterLogEvents JSON pattern',
      'GetMetricData default Label',
      'GetMetricData with EndTime equal to StartTime',
    ]);
  });
});
