import { describe, expect, it } from 'vitest';
import { ALL_OPTIONS_CONFIG } from './all-options.ts';
import { allStates, definitions, templateOf } from './template.ts';

/**
 * A ResultSelector that names a field the result lacks raises States.Runtime, which no Catch
 * handles (not even States.ALL). On a state that discards its result (`ResultPath: null`) a
 * selector can only add that way to fail, so no state may have both.
 */
describe('states that discard their result', () => {
  it.each([
    ['the default configuration', {}],
    ['every option enabled', ALL_OPTIONS_CONFIG],
  ])('select nothing from it, with %s', (_name, config) => {
    const both: string[] = [];
    let discarding = 0;
    for (const [workflow, definition] of definitions(templateOf({ config }))) {
      for (const [name, state] of allStates(definition)) {
        if (!('ResultPath' in state) || state.ResultPath !== null) continue;
        discarding += 1;
        if ('ResultSelector' in state) both.push(`${workflow}: ${name}`);
      }
    }
    expect(discarding).toBeGreaterThan(30);
    expect(both).toEqual([]);
  });
});
