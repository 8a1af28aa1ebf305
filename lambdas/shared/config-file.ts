import { readFileSync } from 'node:fs';

/**
 * The function's configuration file: the variables the stack knew at synth (channels, people,
 * triggers, limits, telemetry services...), as JSON `{ NAME: "value" }`, shipped in the
 * stack's configuration layer instead of the environment, which Lambda caps at 4 KB per
 * function. The variable `SLACK_AGENTS_CONFIG_FILE` names it; applying it copies each variable
 * into the environment, so every reader of `process.env` finds it where it always did.
 */

/** The variable naming the file (lambdas/shared/env.ts `ENV.configFile`). */
export const CONFIG_FILE_VARIABLE = 'SLACK_AGENTS_CONFIG_FILE';
/** Where the stack's configuration layer puts the files: Lambda extracts a layer under /opt. */
export const CONFIG_FILE_DIR = '/opt/slack-agents';
/** Metadata key on the layer's resource, for the sandbox: `{ "<digest>.json": { NAME: value } }`. */
export const CONFIG_FILES_METADATA_KEY = 'slack-agents:config-files';

class InvalidConfigFileError extends Error {
  override readonly name = 'InvalidConfigFileError';
  constructor(
    readonly path: string,
    reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(`configuration file ${path} (${CONFIG_FILE_VARIABLE}) ${reason}`, options);
  }
}

/** Parses a configuration file's text: an object of string values, nothing else. */
export function parseConfigFile(path: string, text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new InvalidConfigFileError(path, 'is not JSON', { cause });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InvalidConfigFileError(path, 'is not a JSON object');
  for (const [name, inner] of Object.entries(value)) {
    if (typeof inner !== 'string') throw new InvalidConfigFileError(path, `has a non-text value for ${name}`);
  }
  return value as Record<string, string>;
}

/**
 * Copies the file's variables into `env` (a variable the environment already sets wins: a
 * developer's override). No file named: nothing to do. A named file that cannot be read stops
 * the cold start: a function missing its configuration must not run on guesses.
 * @returns the names applied
 */
export function applyConfigFile(
  env: NodeJS.ProcessEnv = process.env,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string[] {
  const path = env[CONFIG_FILE_VARIABLE];
  if (path === undefined || path === '') return [];
  let text: string;
  try {
    text = read(path);
  } catch (cause) {
    throw new InvalidConfigFileError(path, 'cannot be read', { cause });
  }
  const applied: string[] = [];
  for (const [name, value] of Object.entries(parseConfigFile(path, text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    applied.push(name);
  }
  return applied;
}
