import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandboxTelemetry } from '../../local/sandbox-telemetry.ts';
import { generateDemoIncident } from '../../local/telemetry/demo-incident.ts';
import { readLoghubNoise } from '../../local/telemetry/loghub-noise.ts';
import { loghubDir, loghubPresent } from '../log-analysis/loghub.ts';
import { itWithLoghub } from '../support/shared-data.ts';

const NOW = Date.parse('2015-11-23T22:00:00.000Z');

describe('the demo incident', () => {
  it('is the same for the same seed and differs for another', () => {
    const a = generateDemoIncident({ now: NOW, seed: 3 });
    const b = generateDemoIncident({ now: NOW, seed: 3 });
    const c = generateDemoIncident({ now: NOW, seed: 4 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(c.logs.map((e) => e.message)).not.toEqual(a.logs.map((e) => e.message));
    expect(c.facts.deployAt).toBe(a.facts.deployAt);
  });

  it('plants provider timeouts in payment-api only after its deploy, and none in the hours before', () => {
    const { logs, facts } = generateDemoIncident({ now: NOW });
    const timeouts = logs.filter(
      (e) => e.group === '/ecs/payment-api' && e.message.includes('provider request timed out'),
    );
    expect(timeouts.length).toBeGreaterThan(300);
    expect(Math.min(...timeouts.map((e) => e.timestamp))).toBeGreaterThanOrEqual(facts.spikeStart);
    expect(facts.spikeStart - facts.deployAt).toBe(120_000);
    const failedCheckouts = logs.filter(
      (e) => e.group === '/ecs/checkout' && e.message.includes('payment authorization failed'),
    );
    expect(Math.min(...failedCheckouts.map((e) => e.timestamp))).toBeGreaterThanOrEqual(facts.spikeStart);
  });

  it('correlates the failing checkouts with payment-api by trace id', () => {
    const { logs } = generateDemoIncident({ now: NOW });
    const traceOf = (message: string) => (JSON.parse(message) as { trace_id?: string }).trace_id;
    const failed = logs.find((e) => e.message.includes('payment authorization failed'));
    const trace = traceOf(failed?.message ?? '{}');
    expect(
      logs.filter((e) => e.group === '/ecs/payment-api' && e.message.includes(`"trace_id":"${trace}"`))
        .length,
    ).toBeGreaterThanOrEqual(1);
  });

  it('records the deploy as a CloudFormation update with a new task definition revision', () => {
    const { stackEvents, facts } = generateDemoIncident({ now: NOW });
    const events = stackEvents['payment-api-prod'] ?? [];
    expect(
      events.find(
        (e) => e.resourceStatus === 'UPDATE_COMPLETE' && e.resourceType === 'AWS::ECS::TaskDefinition',
      )?.physicalResourceId,
    ).toBe(facts.taskDefinition);
    expect(
      events.find((e) => e.resourceType === 'AWS::ECS::Service' && e.resourceStatus === 'UPDATE_COMPLETE')
        ?.timestamp,
    ).toBe(facts.deployAt);
  });

  it('keeps the cache steady during the incident, with an eviction burst long before it', () => {
    const { metrics, facts } = generateDemoIncident({ now: NOW });
    const evictions = metrics.filter((m) => m.id.name === 'Evictions' && (m.values[0] ?? 0) > 1000);
    expect(evictions).toHaveLength(5);
    expect(Math.max(...evictions.map((m) => m.time))).toBeLessThan(facts.deployAt - 60 * 60_000);
  });
});

describe("the sandbox's telemetry", () => {
  it('seeds the demo incident when its data is first read, relative to that moment', () => {
    let now = NOW;
    const telemetry = createSandboxTelemetry({ now: () => now });
    now = NOW + 3_600_000;

    expect(telemetry.logs.hasGroup('/ecs/payment-api')).toBe(true);
    expect(telemetry.demo?.deployAt).toBe(generateDemoIncident({ now }).facts.deployAt);
  });

  it('seeds nothing when the demo is off', () => {
    const telemetry = createSandboxTelemetry({ demoSeed: false });

    expect(telemetry.logs.hasGroup('/ecs/payment-api')).toBe(false);
    expect(telemetry.demo).toBeUndefined();
  });
});

describe('Loghub noise', () => {
  itWithLoghub('is read from the Loghub directory when it is there', () => {
    expect(loghubPresent()).toBe(true);
    const noise = readLoghubNoise(loghubDir());
    expect(noise.note).toBeUndefined();
    expect(noise.lines.length).toBe(6000);
    const incident = generateDemoIncident({ now: NOW, noise: noise.lines });
    const mixed = incident.logs.filter((e) => e.stream.startsWith('host-agent/'));
    expect(mixed).toHaveLength(2 * 180);
    expect(noise.lines).toContain(mixed[0]?.message);
  });

  it('is skipped with a note when no directory is named or its files are missing', () => {
    expect(readLoghubNoise(undefined)).toEqual({
      lines: [],
      note: 'no Loghub noise: SANDBOX_LOGHUB_DIR is not set',
    });
    const empty = mkdtempSync(join(tmpdir(), 'loghub-'));
    try {
      const noise = readLoghubNoise(empty);
      expect(noise.lines).toEqual([]);
      expect(noise.note).toMatch(/^Loghub files not found, skipped: .*Linux_2k\.log/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
