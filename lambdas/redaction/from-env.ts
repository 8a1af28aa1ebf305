import { ENV } from '../shared/env.ts';
import { DEFAULT_REDACTION, RedactionSettings } from './config.ts';
import { InvalidRedactionSettingsError } from './errors.ts';
import { Redactor } from './redactor.ts';

/**
 * The installation's redaction settings, from the environment the stack sets on every
 * function (one value for all, so every boundary redacts alike). Absent: the defaults. Bad
 * JSON or an unknown class fails the function with the variable named, never a silent default.
 */
export function redactionSettings(env: NodeJS.ProcessEnv = process.env): RedactionSettings {
  const raw = env[ENV.redaction];
  if (raw === undefined || raw === '') return DEFAULT_REDACTION;
  try {
    return RedactionSettings.parse(JSON.parse(raw));
  } catch (cause) {
    throw new InvalidRedactionSettingsError(ENV.redaction, { cause });
  }
}

/** A redactor for `scope` (a conversation id) with the installation's settings. */
export function redactorFor(scope: string, env: NodeJS.ProcessEnv = process.env): Redactor {
  return new Redactor(scope, redactionSettings(env));
}
