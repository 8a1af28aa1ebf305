/**
 * Compares the sandbox's CloudWatch Logs, CloudWatch metrics and CloudFormation emulators with
 * Python moto's `moto_server` over one scenario (moto-scenario.ts) and prints each observation.
 *
 *   npx tsx local/telemetry/check-against-moto.ts
 *
 * Exits 1 if a compared observation differs, 2 if moto_server cannot be started.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startMoto } from '../moto-server.ts';
import { readBody } from '../read-body.ts';
import { createSandboxTelemetry } from '../sandbox-telemetry.ts';
import { compareObservations, telemetryScenario } from './moto-scenario.ts';

async function main(): Promise<number> {
  let moto: Awaited<ReturnType<typeof startMoto>>;
  try {
    moto = await startMoto();
  } catch (error) {
    console.error(`moto comparison not run: ${(error as Error).message}`);
    return 2;
  }
  const telemetry = createSandboxTelemetry({ demoSeed: false });
  const server = createServer(
    (req, res) =>
      void readBody(req).then(async (body) => {
        if (!(await telemetry.serve(req, res, body))) res.writeHead(404).end();
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const now = Date.now();
    const ours = await telemetryScenario(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, now);
    const theirs = await telemetryScenario(moto.endpoint, now);
    const rows = compareObservations(ours, theirs);
    console.log('CloudWatch Logs, metrics and CloudFormation: this emulator vs moto_server\n');
    for (const row of rows) {
      console.log(`[${row.verdict}] ${row.name}\n    emulator: ${row.ours}`);
      if (row.verdict !== 'same')
        console.log(`    moto:     ${row.theirs}${row.note ? `\n    note:     ${row.note}` : ''}`);
    }
    const different = rows.filter((r) => r.verdict === 'DIFFERENT').length;
    console.log(
      different === 0
        ? `\nAll ${rows.filter((r) => r.note === undefined).length} compared observations agree.`
        : `\n${different} compared observation(s) differ.`,
    );
    return different === 0 ? 0 : 1;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    moto.process.kill();
  }
}

process.exitCode = await main();
