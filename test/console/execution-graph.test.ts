import { describe, expect, it } from 'vitest';
import { executionPath } from '../../console/src/execution-path.ts';
import { type AslDefinition, edgeKey, layoutGraph } from '../../console/src/graph-layout.ts';
import { stateEdges } from '../../console/src/graph-model.ts';

/** A small workflow with what the bug workflow has: a choice, a wait that loops back, a shared catch. */
const asl: AslDefinition = {
  StartAt: 'Start',
  States: {
    Start: { Type: 'Pass', Next: 'Work' },
    Work: { Type: 'Task', Next: 'Route', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Mark failed' }] },
    Route: { Type: 'Choice', Choices: [{ Next: 'Ask' }, { Next: 'Post' }], Default: 'Post' },
    Ask: { Type: 'Task', Next: 'Wait', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Mark failed' }] },
    Wait: { Type: 'Task', Next: 'Work', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Mark failed' }] },
    Post: { Type: 'Task', Next: 'Done', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Mark failed' }] },
    Done: { Type: 'Succeed' },
    'Mark failed': { Type: 'Task', Next: 'Failed' },
    Failed: { Type: 'Fail' },
  },
};

const node = (name: string) => {
  const found = layoutGraph(asl).nodes.find((n) => n.name === name);
  if (!found) throw new Error(`no node ${name}`);
  return found;
};

describe('the execution graph layout', () => {
  it('merges every way from one state to another into one edge', () => {
    const route = stateEdges(asl).filter((e) => e.from === 'Route');
    expect(route).toEqual([
      { from: 'Route', to: 'Ask', kinds: ['choice'] },
      { from: 'Route', to: 'Post', kinds: ['choice', 'default'] },
    ]);
  });

  it('puts every state below the states that lead to it, loops excepted', () => {
    expect(node('Start').layer).toBe(0);
    expect(node('Work').layer).toBe(1);
    expect(node('Route').layer).toBe(2);
    expect(node('Wait').layer).toBeGreaterThan(node('Ask').layer);
    const loop = layoutGraph(asl).edges.find((e) => e.from === 'Wait' && e.to === 'Work');
    expect(loop?.back).toBe(true);
  });

  it('collapses a catch that many states share and puts its target below the rest', () => {
    const layout = layoutGraph(asl);
    expect(layout.collapsed.map((e) => e.from).sort()).toEqual(['Ask', 'Post', 'Wait', 'Work']);
    expect(layout.edges.some((e) => e.to === 'Mark failed')).toBe(false);
    expect(node('Work').collapsedCatches).toEqual(['Mark failed']);
    const others = layout.nodes.filter((n) => n.name !== 'Mark failed' && n.name !== 'Failed');
    expect(node('Mark failed').layer).toBeGreaterThan(Math.max(...others.map((n) => n.layer)));
    expect(node('Failed').layer).toBe(node('Mark failed').layer + 1);
  });

  it('keeps boxes of a layer apart and inside the drawing', () => {
    const layout = layoutGraph(asl);
    for (const a of layout.nodes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.nodes) {
        if (a !== b && a.layer === b.layer) expect(a.x + a.width <= b.x || b.x + b.width <= a.x).toBe(true);
      }
    }
  });
});

describe('the path an execution took', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const events = [
    { type: 'ExecutionStarted', timestamp: at(0) },
    { type: 'PassStateEntered', stateName: 'Start', timestamp: at(1), input: '{"a":1}' },
    { type: 'PassStateExited', stateName: 'Start', timestamp: at(1), output: '{"a":2}' },
    { type: 'TaskStateEntered', stateName: 'Work', timestamp: at(2) },
    { type: 'TaskFailed', timestamp: at(3), error: 'Lambda.ServiceException' },
    { type: 'TaskSucceeded', timestamp: at(4) },
    { type: 'TaskStateExited', stateName: 'Work', timestamp: at(5) },
    { type: 'ChoiceStateEntered', stateName: 'Route', timestamp: at(5) },
    { type: 'ChoiceStateExited', stateName: 'Route', timestamp: at(5) },
    { type: 'TaskStateEntered', stateName: 'Ask', timestamp: at(6) },
    { type: 'TaskStateExited', stateName: 'Ask', timestamp: at(6) },
    { type: 'TaskStateEntered', stateName: 'Wait', timestamp: at(7) },
    { type: 'TaskTimedOut', timestamp: at(8), error: 'States.Timeout' },
    { type: 'TaskStateExited', stateName: 'Wait', timestamp: at(8) },
    { type: 'TaskStateEntered', stateName: 'Mark failed', timestamp: at(9) },
  ];

  it('marks the running state, the states that ran, retries and caught errors', () => {
    const path = executionPath(events, 'RUNNING');
    expect(path.current).toBe('Mark failed');
    expect(path.states.get('Start')).toMatchObject({
      status: 'succeeded',
      lastInput: '{"a":1}',
      lastOutput: '{"a":2}',
    });
    expect(path.states.get('Work')).toMatchObject({ status: 'succeeded', failures: 1 });
    expect(path.states.get('Wait')).toMatchObject({ status: 'caught', lastError: 'States.Timeout' });
    expect(path.taken.has(edgeKey('Route', 'Ask'))).toBe(true);
    expect(path.taken.has(edgeKey('Wait', 'Mark failed'))).toBe(true);
    expect(path.taken.has(edgeKey('Route', 'Post'))).toBe(false);
  });

  it('has no running state once the execution ended, and the last one failed when it failed', () => {
    const path = executionPath([...events, { type: 'ExecutionFailed', timestamp: at(10) }], 'FAILED');
    expect(path.current).toBeUndefined();
    expect(path.states.get('Mark failed')?.status).toBe('failed');
  });
});
