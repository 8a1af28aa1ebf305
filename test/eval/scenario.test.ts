import { describe, expect, it } from 'vitest';
import { type Scenario, seedScenario } from '../../eval/telemetry/scenario.ts';

const NOW = Date.UTC(2026, 10, 26, 15, 0);
const MINUTE = 60_000;

function seed(scenario: Scenario) {
  const lines: { group: string; timestamp: number; message: string }[] = [];
  const metrics: { name: string; service: string; time: number; value: number }[] = [];
  const stacks: { stack: string; statuses: string[] }[] = [];
  seedScenario(scenario, NOW, {
    logs: { put: (group, _stream, e) => void lines.push({ group, ...e }) },
    metrics: {
      put: (id, time, value) =>
        void metrics.push({ name: id.name, service: id.dimensions[0]?.Value ?? '', time, value }),
    },
    cloudformation: {
      addEvents: (stack, events) =>
        void stacks.push({ stack, statuses: events.map((e) => e.resourceStatus) }),
    },
  });
  return { lines, metrics, stacks };
}

const SCENARIO: Scenario = {
  seed: 5,
  hours: 1,
  deploys: [
    {
      service: 'inventory',
      minutesAgo: 30,
      version: '2026.11.26-abcdef1',
      startLines: ['config loaded: db.pool.max=5'],
    },
  ],
  effects: [
    {
      service: 'inventory',
      fromMinutesAgo: 20,
      toMinutesAgo: 10,
      errorShare: 0.5,
      errorLine: 'pool timeout after {ms}ms',
      gauges: { PoolWaitMs: 2500 },
    },
  ],
};

describe('the incident scenario generator', () => {
  it('gives the same data for the same seed and time', () => {
    expect(seed(SCENARIO)).toEqual(seed(SCENARIO));
    expect(seed({ ...SCENARIO, seed: 6 }).lines).not.toEqual(seed(SCENARIO).lines);
  });

  it("logs an effect's errors inside its window only, and moves its gauge there", () => {
    const { lines, metrics } = seed(SCENARIO);
    const errors = lines.filter((l) => l.message.includes('pool timeout after'));
    expect(errors.length).toBeGreaterThan(20);
    for (const e of errors) {
      expect(e.group).toBe('/ecs/prod/inventory');
      expect(e.timestamp).toBeGreaterThanOrEqual(NOW - 20 * MINUTE);
      expect(e.timestamp).toBeLessThan(NOW - 10 * MINUTE);
      expect(e.message).not.toContain('{ms}');
    }
    const wait = metrics.filter((m) => m.name === 'PoolWaitMs');
    const inWindow = wait.filter(
      (m) => m.time - 30_000 >= NOW - 20 * MINUTE && m.time - 30_000 < NOW - 10 * MINUTE,
    );
    expect(Math.min(...inWindow.map((m) => m.value))).toBeGreaterThan(2000);
    expect(Math.max(...wait.filter((m) => !inWindow.includes(m)).map((m) => m.value))).toBeLessThan(10);
  });

  it('records a deploy as a stack update and the new tasks’ start lines with their version', () => {
    const { lines, stacks } = seed(SCENARIO);
    expect(stacks).toEqual([
      {
        stack: 'inventory-prod',
        statuses: expect.arrayContaining(['UPDATE_IN_PROGRESS', 'UPDATE_COMPLETE']),
      },
    ]);
    expect(lines.some((l) => l.message.includes('starting inventory version=2026.11.26-abcdef1'))).toBe(true);
    expect(lines.some((l) => l.message.includes('config loaded: db.pool.max=5'))).toBe(true);
  });
});
