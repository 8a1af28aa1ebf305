/**
 * What the modules that add to the Router (`routerAdditions`) give it beyond their parts: the
 * variables their parts read, set on the Router as on their own functions.
 */

/** The variables the Router gets from the modules that add to it: two that set one name must agree. */
export function routerEnvironment(
  modules: readonly {
    readonly module: { readonly name: string };
    readonly environment: Readonly<Record<string, string>>;
  }[],
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const { module, environment: variables } of modules) {
    for (const [name, value] of Object.entries(variables)) {
      if (name in environment && environment[name] !== value)
        throw new Error(`${module.name} sets the Router's ${name} differently from another module`);
      environment[name] = value;
    }
  }
  return environment;
}
