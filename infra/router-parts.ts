import { ENV } from '../lambdas/shared/env.ts';

/**
 * What the Router gets from the modules beyond its parts: the variables the parts of the
 * modules that add to it (`routerAdditions`) read, set on the Router as on their own functions,
 * and every enabled module's answer kinds (`answerKinds`) for its feedback.
 */

interface RouterModule {
  readonly module: { readonly name: string; readonly answerKinds?: Readonly<Record<string, string>> };
  readonly environment: Readonly<Record<string, string>>;
}

/** The Router's variables from the enabled modules: their parts' (`adding`), and ANSWER_KINDS. */
export function routerVariables(
  enabled: readonly RouterModule[],
  adding: readonly RouterModule[],
): Record<string, string> {
  const kinds = agreeing(enabled, ({ module }) => module.answerKinds ?? {}, 'names the answer kind');
  return {
    ...agreeing(adding, ({ environment }) => environment, "sets the Router's"),
    [ENV.answerKinds]: JSON.stringify(kinds),
  };
}

/** The modules' maps merged; two modules giving one key different values fail the synth. */
function agreeing(
  modules: readonly RouterModule[],
  mapOf: (module: RouterModule) => Readonly<Record<string, string>>,
  what: string,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const entry of modules) {
    for (const [key, value] of Object.entries(mapOf(entry))) {
      if (key in merged && merged[key] !== value)
        throw new Error(`${entry.module.name} ${what} ${key} differently from another module`);
      merged[key] = value;
    }
  }
  return merged;
}
