/**
 * Puts `process.env` back to `saved`, in place: names added since are deleted, the rest set
 * again. Never by assigning another object to the environment: Vitest's `vi.stubEnv` and
 * `import.meta.env` hold the original object, and a file sharing the worker afterwards would
 * read one object and restore another.
 */
export function restoreEnvironment(saved: Readonly<Record<string, string | undefined>>): void {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
}
