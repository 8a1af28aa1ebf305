import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { invalidInput } from './errors.ts';

/**
 * The part of a CodeBuild buildspec (version 0.2) the emulator runs: the four command phases
 * with their `on-failure`, `env.variables`, and `reports` (JUnit XML test reports, read after
 * the commands: reports.ts). Other sections (artifacts, cache, `env.secrets-manager`...)
 * describe what happens around the commands; they are accepted and not acted on, except those
 * that would change what runs, which are refused.
 */

export const PHASE_NAMES = ['install', 'pre_build', 'build', 'post_build'] as const;
export type PhaseName = (typeof PHASE_NAMES)[number];

const Commands = z.array(z.union([z.string(), z.number(), z.boolean()]).transform(String));

const Phase = z.looseObject({
  commands: Commands.default([]),
  'on-failure': z.enum(['ABORT', 'CONTINUE']).default('ABORT'),
  'runtime-versions': z.record(z.string(), z.unknown()).optional(),
});

const Buildspec = z.looseObject({
  version: z.union([z.literal(0.2), z.literal('0.2')]),
  env: z
    .looseObject({
      shell: z.literal('bash').optional(),
      variables: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String))
        .optional(),
      'secrets-manager': z.never().optional(),
      'parameter-store': z.never().optional(),
    })
    .optional(),
  reports: z
    .record(
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'a report group name'),
      z.looseObject({
        files: z.array(z.string().min(1)).min(1),
        'base-directory': z.string().min(1).optional(),
        'file-format': z.literal('JUNITXML').default('JUNITXML'),
      }),
    )
    .optional(),
  phases: z.strictObject({
    install: Phase.optional(),
    pre_build: Phase.optional(),
    build: Phase.optional(),
    post_build: Phase.optional(),
  }),
});

export interface BuildspecPhase {
  readonly commands: readonly string[];
  readonly onFailure: 'ABORT' | 'CONTINUE';
}

/** A `reports:` group: JUnit XML files, matched under the base directory (the checkout's root by default). */
export interface ReportGroupSpec {
  readonly name: string;
  readonly files: readonly string[];
  readonly baseDirectory?: string | undefined;
}

export interface ParsedBuildspec {
  readonly variables: Readonly<Record<string, string>>;
  readonly phases: Readonly<Partial<Record<PhaseName, BuildspecPhase>>>;
  readonly reports: readonly ReportGroupSpec[];
}

/** Parses a buildspec given inline (YAML or JSON), or throws InvalidInputException saying what is wrong. */
export function parseBuildspec(text: string): ParsedBuildspec {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (cause) {
    throw invalidInput(`Invalid buildspec: not YAML (${(cause as Error).message})`, { cause });
  }
  const parsed = Buildspec.safeParse(value);
  if (!parsed.success) throw invalidInput(`Invalid buildspec: ${z.prettifyError(parsed.error)}`);
  for (const phase of PHASE_NAMES) {
    if (parsed.data.phases[phase] && 'finally' in parsed.data.phases[phase]) {
      throw invalidInput(
        `Invalid buildspec: phases.${phase}.finally is not supported by the sandbox's CodeBuild`,
      );
    }
  }
  const phases: Partial<Record<PhaseName, BuildspecPhase>> = {};
  for (const name of PHASE_NAMES) {
    const phase = parsed.data.phases[name];
    if (phase) phases[name] = { commands: phase.commands, onFailure: phase['on-failure'] };
  }
  const reports = Object.entries(parsed.data.reports ?? {}).map(([name, group]) => ({
    name,
    files: group.files,
    baseDirectory: group['base-directory'],
  }));
  return { variables: parsed.data.env?.variables ?? {}, phases, reports };
}
