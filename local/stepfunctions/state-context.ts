import { invalidDefinition } from './errors.ts';

/** Where a definition may read `$$.State`: only the fields the runtime provides, in a Task's Parameters. */

type Json = Record<string, unknown>;

/** The `$$.State` fields the runtime provides (runtime.ts), in a Task's Parameters. */
const STATE_CONTEXT_FIELDS: readonly string[] = ['EnteredTime', 'Name'];

/**
 * The library evaluates `$$` against one static context, so the runtime can give a state its own
 * `$$.State.EnteredTime` and `$$.State.Name` only where it sees the evaluated value before it is
 * used: a Task's Parameters, which its integration receives. Anywhere else, or any other field
 * (`RetryCount`, the whole `$$.State`), would silently read a placeholder: refused.
 */
export function checkStateContext(name: string, type: string, state: Json): void {
  // Nested machines are checked state by state.
  const { Branches: _branches, ItemProcessor: _processor, Iterator: _iterator, Parameters, ...rest } = state;
  const outside = stateContextFields(type === 'Task' ? rest : { ...rest, Parameters });
  if (outside.length > 0) {
    throw invalidDefinition(
      `state '${name}' reads $$.State${outside[0] ? `.${outside[0]}` : ''} outside a Task's Parameters, ` +
        'where the sandbox cannot provide it',
    );
  }
  const unknown = stateContextFields(Parameters).find((field) => !STATE_CONTEXT_FIELDS.includes(field));
  if (unknown !== undefined) {
    throw invalidDefinition(
      `Task state '${name}' reads $$.State${unknown ? `.${unknown}` : ''}; the sandbox provides ` +
        `${STATE_CONTEXT_FIELDS.map((field) => `$$.State.${field}`).join(' and ')} only`,
    );
  }
}

/** The `$$.State` fields a part of a state reads ('' for the whole object). */
function stateContextFields(value: unknown): string[] {
  const text = JSON.stringify(value ?? null);
  return [...text.matchAll(/\$\$\.State\b(?:\.(\w+))?/g)].map((match) => match[1] ?? '');
}
