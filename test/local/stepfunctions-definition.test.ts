import { describe, expect, it } from 'vitest';
import { prepareDefinition } from '../../local/stepfunctions/definition.ts';
import { MAX_LIBRARY_TIMER_SECONDS } from '../../local/stepfunctions/time.ts';

/** The resource the emulator gives a Wait on a path (stated here, not imported: the value is what this test checks). */
const PATH_WAIT_RESOURCE = 'arn:aws:states:::sandbox:wait';

/** What the emulator adds to a task's timeout before its library's timer fires (stated here, not imported: the value is what this test checks). */
const LIBRARY_TIMEOUT_MARGIN_MS = 20;

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:Work';
const task = (extra: Record<string, unknown> = {}) => ({
  Type: 'Task',
  Resource: LAMBDA,
  End: true,
  ...extra,
});
const single = (state: Record<string, unknown>, name = 'S') => ({ StartAt: name, States: { [name]: state } });
const prepare = (definition: unknown, timeScale = 0.001) =>
  prepareDefinition(definition, { timeScale, hasDynamoDb: false });
// biome-ignore lint/suspicious/noExplicitAny: reading into the library-facing copy
const stateOf = (definition: unknown, name = 'S', timeScale = 0.001): any =>
  (prepare(definition, timeScale).runnable.States as Record<string, unknown>)[name];

describe('prepareDefinition', () => {
  it('gives a Task without TimeoutSeconds the longest timer instead of the library default of 60 s', () => {
    expect(stateOf(single(task())).TimeoutSeconds).toBe(MAX_LIBRARY_TIMER_SECONDS);
  });

  it('scales the TimeoutSeconds of a wait for people, leaving the runtime a margin to retire the token first', () => {
    const wait = task({ Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken', TimeoutSeconds: 7200 });

    const state = stateOf(single(wait), 'S', 0.0005);

    expect(state.TimeoutSeconds).toBeCloseTo((3600 + LIBRARY_TIMEOUT_MARGIN_MS) / 1000, 6);
  });

  it('keeps the real TimeoutSeconds of a Task that runs code when time is shrunk', () => {
    const state = stateOf(single(task({ TimeoutSeconds: 30 })), 'S', 0.0005);

    expect(state.TimeoutSeconds).toBeCloseTo((30_000 + LIBRARY_TIMEOUT_MARGIN_MS) / 1000, 6);
  });

  it('scales Retry intervals in place, so backoff still applies per attempt', () => {
    const retry = [
      {
        ErrorEquals: ['A'],
        IntervalSeconds: 10,
        BackoffRate: 2,
        MaxDelaySeconds: 60,
        JitterStrategy: 'FULL',
      },
      { ErrorEquals: ['B'] },
    ];

    const state = stateOf(single(task({ Retry: retry })));

    expect(state.Retry).toEqual([
      {
        ErrorEquals: ['A'],
        IntervalSeconds: 0.01,
        BackoffRate: 2,
        MaxDelaySeconds: 0.06,
        JitterStrategy: 'FULL',
      },
      { ErrorEquals: ['B'], IntervalSeconds: 0.001 },
    ]);
  });

  it('lists the Tasks of Parallel branches and Map item processors by state name', () => {
    const definition = single({
      Type: 'Parallel',
      Branches: [
        single(task(), 'In branch'),
        single(
          { Type: 'Map', ItemProcessor: single(task({ TimeoutSeconds: 5 }), 'In map'), End: true },
          'Fan out',
        ),
      ],
      End: true,
    });

    const prepared = prepare(definition);

    expect([...prepared.tasks.keys()].sort()).toEqual(['In branch', 'In map']);
    expect(prepared.tasks.get('In map')).toMatchObject({ resource: LAMBDA, timeoutSeconds: 5 });
  });

  it('runs a SecondsPath Wait as a runtime Task but remembers it as a Wait', () => {
    const definition = single({ Type: 'Wait', SecondsPath: '$.delay', InputPath: '$.x', End: true });

    const prepared = prepare(definition);

    expect((prepared.runnable.States as Record<string, unknown>).S).toMatchObject({
      Type: 'Task',
      Resource: PATH_WAIT_RESOURCE,
      InputPath: '$.x',
      Parameters: { 'value.$': '$.delay', 'input.$': '$' },
    });
    expect(prepared.stateTypes.get('S')).toBe('Wait');
    expect(prepared.tasks.get('S')?.integration).toEqual({ kind: 'wait-path', field: 'SecondsPath' });
  });

  it('refuses what it cannot run faithfully', () => {
    expect(() => prepare(single(task({ TimeoutSecondsPath: '$.t' })))).toThrow(/TimeoutSecondsPath/);
    expect(() =>
      prepare(
        single({
          Type: 'Map',
          ItemProcessor: {
            ...single(task(), 'M'),
            ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
          },
          End: true,
        }),
      ),
    ).toThrow(/distributed Map/);
    expect(() =>
      prepare({
        StartAt: 'P',
        States: { P: { Type: 'Parallel', Branches: [single(task(), 'P')], End: true } },
      }),
    ).toThrow(/Invalid State Machine Definition/);
  });

  it("allows $$.State.EnteredTime and $$.State.Name only in a Task's Parameters, where the runtime provides them", () => {
    const reads = (path: string) => ({ 'at.$': path });
    expect(() => prepare(single(task({ Parameters: reads('$$.State.EnteredTime') })))).not.toThrow();
    expect(() => prepare(single(task({ Parameters: reads('$$.StateMachine.Id') })))).not.toThrow();
    expect(() => prepare(single(task({ Parameters: reads('$$.State.RetryCount') })))).toThrow(
      /reads \$\$\.State\.RetryCount; the sandbox provides \$\$\.State\.EnteredTime and \$\$\.State\.Name only/,
    );
    expect(() => prepare(single(task({ ResultSelector: reads('$$.State.EnteredTime') })))).toThrow(
      /state 'S' reads \$\$\.State\.EnteredTime outside a Task's Parameters/,
    );
    expect(() => prepare(single({ Type: 'Pass', Parameters: reads('$$.State.Name'), End: true }))).toThrow(
      /outside a Task's Parameters/,
    );
  });
});
