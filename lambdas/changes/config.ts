import { InvalidProtectedPathsError } from './errors.ts';
import { type ProtectedPaths, ProtectedPathsSettings, protectedPaths } from './protected-paths.ts';

/**
 * The protected-paths setting as the functions read it: `slackAgents.protectedPaths`, validated
 * at synth and carried as JSON in this variable by every module that writes code. An absent
 * variable means the defaults (the sandbox and tests that build no stack).
 */
export const PROTECTED_PATHS_ENV = 'PROTECTED_PATHS';

export function readProtectedPaths(
  extraPrefixes: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): ProtectedPaths {
  const raw = env[PROTECTED_PATHS_ENV];
  let value: unknown = {};
  try {
    if (raw !== undefined && raw !== '') value = JSON.parse(raw);
  } catch (error) {
    throw new InvalidProtectedPathsError(`${PROTECTED_PATHS_ENV} is not JSON`, { cause: error });
  }
  const parsed = ProtectedPathsSettings.safeParse(value);
  if (!parsed.success)
    throw new InvalidProtectedPathsError(
      `${PROTECTED_PATHS_ENV} is not a valid setting: ${parsed.error.message}`,
      {
        cause: parsed.error,
      },
    );
  return protectedPaths(parsed.data, extraPrefixes);
}
