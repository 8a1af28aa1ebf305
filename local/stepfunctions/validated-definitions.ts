import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { keptInProcess } from '../../lambdas/shared/kept.ts';

/**
 * The definitions already validated, by their text: validation is a pure function of the text
 * (and of the validator's version) and most of what registering a state machine costs (the
 * validator compiles its JSON schemas anew on every call). Every sandbox and every test that
 * runs a graph registers the same few, so what passed is remembered in this process (kept on
 * the process, which a test worker's module reset spares) and, for later processes, as an empty
 * file named by the text's hash under `.sandbox/validated-definitions/` (not committed). Only
 * successes are kept: an invalid definition is validated (and refused) every time.
 */
const MAX_VALIDATED = 256;
/** Past this many remembered files the directory is emptied (its files are a few bytes of name each). */
const MAX_REMEMBERED = 2_048;

/** Where validated definitions are remembered across processes; `false` remembers them in this process only. */
export interface ValidationMemory {
  readonly directory: string | false;
}

const DEFAULT_MEMORY: ValidationMemory = {
  directory: join(process.cwd(), '.sandbox', 'validated-definitions'),
};

/** Validates `definition` (whose JSON text is `source`) as aws-local-stepfunctions does; throws when invalid. */
export function validateOnce(
  source: string,
  definition: StateMachineDefinition,
  memory: ValidationMemory = DEFAULT_MEMORY,
): void {
  const validated = keptInProcess('local.validated-definitions', () => new Set<string>());
  if (validated.has(source)) return;
  const remembered = memory.directory === false ? undefined : join(memory.directory, validationKey(source));
  if (remembered === undefined || !existsSync(remembered)) {
    new StateMachine(definition, { validationOptions: { checkArn: false } });
    if (remembered !== undefined) remember(remembered);
  }
  if (validated.size >= MAX_VALIDATED) validated.clear();
  validated.add(source);
}

/** The name a definition is remembered by: a hash of its text and of the validator's versions. */
export function validationKey(source: string): string {
  return createHash('sha256').update(validatorVersions()).update('\n').update(source).digest('hex');
}

let versions: string | undefined;
/** aws-local-stepfunctions' version and that of the asl-validator it runs. */
function validatorVersions(): string {
  if (versions === undefined) {
    const require = createRequire(import.meta.url);
    const interpreter = require.resolve('aws-local-stepfunctions');
    const validator = createRequire(interpreter).resolve('asl-validator');
    versions = [interpreter, validator].map((entry) => versionOf(entry)).join(' ');
  }
  return versions;
}

/** The `name@version` of the package a resolved entry file belongs to. */
function versionOf(entry: string): string {
  for (let directory = dirname(entry); directory !== dirname(directory); directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (name !== undefined && version !== undefined) return `${name}@${version}`;
  }
  return entry;
}

function remember(file: string): void {
  try {
    const directory = dirname(file);
    mkdirSync(directory, { recursive: true });
    if (readdirSync(directory).length >= MAX_REMEMBERED) rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
    writeFileSync(file, '');
  } catch {
    // Only a later process's time depends on it: a read-only checkout validates every time.
  }
}
