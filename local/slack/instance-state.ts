/**
 * State a module keeps for one fake workspace, held on the workspace object itself under a key
 * of the global symbol registry: the module may be loaded more than once in a process (tests
 * reset modules between sandboxes while a test file keeps its own imports), and every copy must
 * find the same state for the same workspace.
 */
export function stateOf<T>(owner: object, name: string, create: () => T): T {
  const key = Symbol.for(`slack-agents.fake-slack.${name}`);
  const holder = owner as Record<symbol, unknown>;
  if (!Object.hasOwn(holder, key)) Object.defineProperty(holder, key, { value: create(), enumerable: false });
  return holder[key] as T;
}
