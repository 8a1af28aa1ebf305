import { describe, expect, it } from 'vitest';
import { type Inventory, planPruning } from '../../infra/versions/prune-plan.ts';

/** A standard Step Functions execution runs for at most a year (stated here, not imported: the value is what this test checks). */
const LONGEST_EXECUTION_SECONDS = 365 * 86_400;

const NOW = new Date('2001-06-01T00:00:00Z');
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
const MACHINE = 'arn:aws:states:us-east-1:111111111111:stateMachine:Bug';
const FN = 'arn:aws:lambda:us-east-1:111111111111:function:RegisterWait';

/** A definition that waits 48 hours for developers and invokes RegisterWait's version `n`. */
const definition = (n: number, waitSeconds = 48 * 3_600) =>
  JSON.stringify({
    StartAt: 'Register',
    States: {
      Register: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: `${FN}:${n}` },
        Next: 'Developers',
      },
      Developers: {
        Type: 'Task',
        Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
        TimeoutSeconds: waitSeconds,
        End: true,
      },
    },
  });

/** Versions 1..5 of the state machine, version n invoking RegisterWait n; the alias on 5. */
function inventory(
  overrides: { running?: Record<number, number>; ages?: Record<number, number> } = {},
): Inventory {
  const numbers = [1, 2, 3, 4, 5];
  return {
    stateMachines: [
      {
        arn: MACHINE,
        aliasTargets: [`${MACHINE}:5`],
        versions: numbers.map((n) => ({
          arn: `${MACHINE}:${n}`,
          createdAt: hoursAgo(overrides.ages?.[n] ?? 24 * (10 - n)),
          definition: definition(n),
          running: overrides.running?.[n] ?? 0,
        })),
      },
    ],
    functions: [
      {
        name: 'RegisterWait',
        aliasTargets: [],
        versions: numbers.map((n) => ({
          arn: `${FN}:${n}`,
          version: String(n),
          lastModified: hoursAgo(overrides.ages?.[n] ?? 24 * (10 - n)),
        })),
      },
    ],
  };
}
/**
 * Checks that planPruning reads `seconds` as the definition's longest wait: with no margin, a
 * lone version of it (neither routed to nor the rollback target) is kept a millisecond younger
 * than that, and deleted at that age.
 */
function expectLongestWait(text: string, seconds: number): void {
  const hours = (seconds / 3_600).toFixed(0);
  const judged = (ageMs: number) =>
    planPruning(
      {
        stateMachines: [
          {
            arn: MACHINE,
            aliasTargets: [`${MACHINE}:1`],
            versions: [
              {
                arn: `${MACHINE}:2`,
                createdAt: new Date(NOW.getTime() - ageMs),
                definition: text,
                running: 0,
              },
            ],
          },
        ],
        functions: [],
      },
      NOW,
      0,
    ).stateMachineVersions;
  expect(judged(seconds * 1000 - 1)).toEqual([
    {
      arn: `${MACHINE}:2`,
      delete: false,
      reason: `younger than its longest wait plus the margin (${hours} h)`,
    },
  ]);
  expect(judged(seconds * 1000)).toEqual([
    { arn: `${MACHINE}:2`, delete: true, reason: `no execution can call it (older than ${hours} h)` },
  ]);
}

const deleted = (decisions: readonly { arn: string; delete: boolean }[]) =>
  decisions.filter((d) => d.delete).map((d) => d.arn);

describe('pruning old versions', () => {
  it('deletes the state machine versions and Lambda versions no execution can call', () => {
    const plan = planPruning(inventory(), NOW, 24);
    // Versions 1-3 are 9, 8 and 7 days old, past 48 h + 24 h; 4 is the rollback target, 5 the alias's.
    expect(deleted(plan.stateMachineVersions)).toEqual([`${MACHINE}:1`, `${MACHINE}:2`, `${MACHINE}:3`]);
    expect(deleted(plan.functionVersions)).toEqual([`${FN}:1`, `${FN}:2`, `${FN}:3`]);
    expect(plan.stateMachineVersions.find((d) => d.arn === `${MACHINE}:4`)?.reason).toMatch(
      /rollback target/,
    );
  });

  it('keeps a version with an execution still running, and the Lambda versions it invokes', () => {
    const plan = planPruning(inventory({ running: { 2: 1 } }), NOW, 24);
    expect(deleted(plan.stateMachineVersions)).toEqual([`${MACHINE}:1`, `${MACHINE}:3`]);
    expect(deleted(plan.functionVersions)).toEqual([`${FN}:1`, `${FN}:3`]);
    expect(plan.functionVersions.find((d) => d.arn === `${FN}:2`)?.reason).toBe(
      'a kept state machine version invokes it',
    );
  });

  it('keeps what is younger than the longest wait plus the margin', () => {
    const plan = planPruning(inventory({ ages: { 1: 80, 2: 71, 3: 60 } }), NOW, 24);
    expect(deleted(plan.stateMachineVersions)).toEqual([`${MACHINE}:1`]);
    expect(plan.stateMachineVersions.find((d) => d.arn === `${MACHINE}:2`)?.reason).toBe(
      'younger than its longest wait plus the margin (72 h)',
    );
  });

  it('reads the longest wait from the definition, a token wait without a timeout as an execution’s whole life', () => {
    expectLongestWait(definition(1), 48 * 3_600);
    const waits = JSON.stringify({
      States: {
        A: { Type: 'Wait', Seconds: 600, Next: 'B' },
        B: {
          Type: 'Parallel',
          Branches: [
            {
              States: {
                C: {
                  Type: 'Task',
                  Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
                  HeartbeatSeconds: 7_200,
                },
              },
            },
          ],
        },
      },
    });
    expectLongestWait(waits, 7_200);
    const forever = JSON.stringify({
      States: { A: { Type: 'Task', Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken' } },
    });
    expectLongestWait(forever, LONGEST_EXECUTION_SECONDS);
  });

  it('keeps a function’s newest version and the versions its aliases point at', () => {
    const base = inventory();
    const fn = base.functions[0];
    if (fn === undefined) throw new Error('no function');
    const plan = planPruning({ stateMachines: [], functions: [{ ...fn, aliasTargets: ['2'] }] }, NOW, 24);
    expect(deleted(plan.functionVersions)).toEqual([`${FN}:1`, `${FN}:3`, `${FN}:4`]);
  });
});
