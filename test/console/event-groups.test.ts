import { describe, expect, it } from 'vitest';
import { groupEvents } from '../../console/src/event-groups.ts';

const at = '2015-11-23T10:00:00.000Z';
const e = (type: string, stateName?: string) => ({
  type,
  timestamp: at,
  ...(stateName ? { stateName } : {}),
});

describe('the event history grouped per state visit', () => {
  it("puts each state's events in one group and the execution's own events apart", () => {
    const groups = groupEvents([
      e('ExecutionStarted'),
      e('PassStateEntered', 'Prepare'),
      e('PassStateExited', 'Prepare'),
      e('TaskStateEntered', 'Investigate'),
      e('LambdaFunctionScheduled'),
      e('LambdaFunctionStarted'),
      e('LambdaFunctionSucceeded'),
      e('TaskStateExited', 'Investigate'),
      e('ExecutionSucceeded'),
    ]);
    expect(groups.map((g) => [g.title, g.events, g.outcome])).toEqual([
      ['ExecutionStarted', [0], 'neutral'],
      ['Prepare', [1, 2], 'succeeded'],
      ['Investigate', [3, 4, 5, 6, 7], 'succeeded'],
      ['ExecutionSucceeded', [8], 'succeeded'],
    ]);
  });

  it('counts visits of a state that runs again, and marks the one still running', () => {
    const groups = groupEvents([
      e('TaskStateEntered', 'Investigate'),
      e('TaskStateExited', 'Investigate'),
      e('TaskStateEntered', 'Wait'),
      e('TaskStateExited', 'Wait'),
      e('TaskStateEntered', 'Investigate'),
      e('LambdaFunctionScheduled'),
    ]);
    expect(groups.map((g) => [g.title, g.visit, g.outcome])).toEqual([
      ['Investigate', 1, 'succeeded'],
      ['Wait', 1, 'succeeded'],
      ['Investigate', 2, 'running'],
    ]);
  });

  it('tells an error the execution went on from (a retry, a catch) from the one that failed it', () => {
    const groups = groupEvents([
      e('TaskStateEntered', 'Post'),
      e('LambdaFunctionFailed'),
      e('LambdaFunctionSucceeded'),
      e('TaskStateExited', 'Post'),
      e('TaskStateEntered', 'Build'),
      e('TaskFailed'),
      e('ExecutionFailed'),
    ]);
    expect(groups.map((g) => [g.title, g.outcome])).toEqual([
      ['Post', 'caught'],
      ['Build', 'failed'],
      ['ExecutionFailed', 'failed'],
    ]);
  });

  it('reads a 179-event history as far fewer groups, losing no event', () => {
    const events = [e('ExecutionStarted')];
    for (let i = 0; i < 44; i++) {
      events.push(e('TaskStateEntered', `State ${i % 9}`), e('TaskScheduled'), e('TaskSucceeded'));
      events.push(e('TaskStateExited', `State ${i % 9}`));
    }
    events.push(e('PassStateEntered', 'Done'), e('PassStateExited', 'Done'));
    expect(events).toHaveLength(179);
    const groups = groupEvents(events);
    expect(groups).toHaveLength(46);
    expect(groups.flatMap((g) => g.events)).toEqual(events.map((_, i) => i));
  });
});
